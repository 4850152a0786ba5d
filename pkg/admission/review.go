package admission

import (
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// reviewTypeMeta is the only type the webhook speaks, both ways; v1beta1 is
// not spoken.
var reviewTypeMeta = metav1.TypeMeta{
	APIVersion: admissionv1.SchemeGroupVersion.String(),
	Kind:       "AdmissionReview",
}

// jsonPatchType is the only patch type AdmissionReview v1 knows.
var jsonPatchType = admissionv1.PatchTypeJSONPatch

// newReview is the AdmissionReview asking about a under uid, shaped as
// kube-apiserver's webhook dispatcher sends it. a's objects must already be
// JSON in Raw (see jsonAttributes).
func newReview(uid types.UID, a *Attributes) *admissionv1.AdmissionReview {
	requestKind, requestResource, dryRun := a.RequestKind, a.RequestResource, a.DryRun
	return &admissionv1.AdmissionReview{
		TypeMeta: reviewTypeMeta,
		Request: &admissionv1.AdmissionRequest{
			UID:                uid,
			Kind:               a.Kind,
			Resource:           a.Resource,
			SubResource:        a.SubResource,
			RequestKind:        &requestKind,
			RequestResource:    &requestResource,
			RequestSubResource: a.RequestSubResource,
			Name:               a.Name,
			Namespace:          a.Namespace,
			Operation:          a.Operation,
			UserInfo:           a.UserInfo,
			Object:             a.Object,
			OldObject:          a.OldObject,
			DryRun:             &dryRun,
			Options:            a.Options,
		},
	}
}

// attributesOf is the inverse of newReview.
func attributesOf(req *admissionv1.AdmissionRequest) *Attributes {
	a := &Attributes{
		Operation:          req.Operation,
		Kind:               req.Kind,
		Resource:           req.Resource,
		SubResource:        req.SubResource,
		RequestSubResource: req.RequestSubResource,
		Name:               req.Name,
		Namespace:          req.Namespace,
		UserInfo:           req.UserInfo,
		Object:             req.Object,
		OldObject:          req.OldObject,
		Options:            req.Options,
	}
	if req.RequestKind != nil {
		a.RequestKind = *req.RequestKind
	}
	if req.RequestResource != nil {
		a.RequestResource = *req.RequestResource
	}
	if req.DryRun != nil {
		a.DryRun = *req.DryRun
	}
	return a
}

// responseOf is the answer to the review uid for res, as kube's webhook
// dispatcher reads it: a patch always comes with patchType JSONPatch.
func responseOf(uid types.UID, res *Result) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{
		UID:              uid,
		Allowed:          res.Allowed,
		Result:           res.Status,
		Warnings:         res.Warnings,
		AuditAnnotations: res.AuditAnnotations,
	}
	if len(res.Patch) > 0 {
		resp.Patch = res.Patch
		resp.PatchType = &jsonPatchType
	}
	return resp
}

// resultOf reads the answer to the review uid the way kube's webhook
// dispatcher checks it for a mutating webhook: the same uid, and a patch if
// and only if a patchType, which must be JSONPatch. Whether the admitter
// may patch at all is for the caller to decide (see Mutating).
func resultOf(uid types.UID, review *admissionv1.AdmissionReview) (*Result, error) {
	if review.TypeMeta != reviewTypeMeta {
		return nil, fmt.Errorf("%w: got %q %q, want %s %s", ErrMalformedReview,
			review.APIVersion, review.Kind, reviewTypeMeta.APIVersion, reviewTypeMeta.Kind)
	}
	resp := review.Response
	switch {
	case resp == nil:
		return nil, fmt.Errorf("%w: no response", ErrMalformedReview)
	case resp.UID != uid:
		return nil, fmt.Errorf("%w: response.uid %q does not match request.uid %q", ErrMalformedReview, resp.UID, uid)
	case len(resp.Patch) > 0 && resp.PatchType == nil:
		return nil, fmt.Errorf("%w: response.patch without response.patchType", ErrMalformedReview)
	case len(resp.Patch) == 0 && resp.PatchType != nil:
		return nil, fmt.Errorf("%w: response.patchType without response.patch", ErrMalformedReview)
	case resp.PatchType != nil && *resp.PatchType != admissionv1.PatchTypeJSONPatch:
		return nil, fmt.Errorf("%w: response.patchType %q, want %s", ErrMalformedReview, *resp.PatchType, admissionv1.PatchTypeJSONPatch)
	}
	if _, err := decodePatch(resp.Patch); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedReview, err)
	}
	return &Result{
		Allowed:          resp.Allowed,
		Status:           resp.Result,
		Patch:            resp.Patch,
		Warnings:         resp.Warnings,
		AuditAnnotations: resp.AuditAnnotations,
	}, nil
}
