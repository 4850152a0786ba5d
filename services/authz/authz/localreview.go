package authz

import (
	"fmt"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
)

// LocalSubjectAccessReviewPattern is where kube-apiserver serves the
// namespaced review, as a ServeMux pattern: any subject, one namespace,
// so a namespace's admin can be granted it without cluster-wide power.
const LocalSubjectAccessReviewPattern = "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews"

// localReviewKind names the type in Invalid errors.
var localReviewKind = authorizationv1.SchemeGroupVersion.WithKind("LocalSubjectAccessReview")

// newLocalSubjectAccessReviewHandler answers LocalSubjectAccessReviews
// with a, the chain that answers SubjectAccessReviews. Who may ask about
// whom in the namespace is the aggregator's authorization of the create
// (verb create on localsubjectaccessreviews in that namespace), as in kube.
func newLocalSubjectAccessReviewHandler(a authz.Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := callerOf(w, r); !ok {
			return
		}
		var review authorizationv1.LocalSubjectAccessReview
		if !decodeObject(w, r, localReviewKind, &review) {
			return
		}
		if err := bindNamespace(&review, r.PathValue("namespace")); err != nil {
			apierror.Write(w, err)
			return
		}
		if errs := validateLocalReview(&review); len(errs) > 0 {
			apierror.Write(w, apierrors.NewInvalid(localReviewKind.GroupKind(), "", errs))
			return
		}
		res, err := a.Authorize(r.Context(), localAttributes(&review.Spec))
		review.Status = authz.ReviewStatus(res, err)
		writeObject(w, r, http.StatusCreated, authorizationv1.SchemeGroupVersion, &review)
	})
}

// bindNamespace ties the review to the URL's namespace, which is what
// the aggregator authorized: an empty metadata.namespace or
// spec.resourceAttributes.namespace means the URL's, a different one is
// 400, as kube's create handler and the review's REST storage answer.
func bindNamespace(review *authorizationv1.LocalSubjectAccessReview, ns string) error {
	if ns == "" {
		return apierrors.NewBadRequest("namespace is required on this type")
	}
	switch review.Namespace {
	case "":
		review.Namespace = ns
	case ns:
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	ra := review.Spec.ResourceAttributes
	if ra == nil {
		return nil // validateLocalReview refuses it
	}
	switch ra.Namespace {
	case "":
		ra.Namespace = ns
	case ns:
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", ns))
	}
	return nil
}

// validateLocalReview checks what kube's validation of the type checks:
// resource attributes only (a non-resource URL has no namespace), a
// subject, and no metadata but the namespace.
func validateLocalReview(review *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	var errs field.ErrorList
	spec, path := &review.Spec, field.NewPath("spec")
	switch {
	case spec.ResourceAttributes == nil:
		errs = append(errs, field.Required(path.Child("resourceAttributes"),
			"exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	case spec.NonResourceAttributes != nil:
		errs = append(errs, field.Invalid(path.Child("nonResourceAttributes"), spec.NonResourceAttributes,
			"disallowed on this kind of request"))
	}
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(path.Child("user"), spec.User, "at least one of user or group must be specified"))
	}
	meta := review.ObjectMeta
	meta.Namespace, meta.ManagedFields = "", nil
	if !apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), review.ObjectMeta, "must be empty except for namespace"))
	}
	return errs
}

// localAttributes asks about the spec's subject, as a SubjectAccessReview
// does; the namespace is already the URL's.
func localAttributes(spec *authorizationv1.SubjectAccessReviewSpec) authz.Attributes {
	a := authz.Attributes{User: subjectOf(spec), ResourceRequest: true}
	ra := spec.ResourceAttributes
	a.Verb, a.Namespace, a.Name = ra.Verb, ra.Namespace, ra.Name
	a.APIGroup, a.APIVersion = ra.Group, ra.Version
	a.Resource, a.Subresource = ra.Resource, ra.Subresource
	return a
}

// subjectOf is the user a review's spec asks about.
func subjectOf(spec *authorizationv1.SubjectAccessReviewSpec) authenticationv1.UserInfo {
	u := authenticationv1.UserInfo{Username: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = make(map[string]authenticationv1.ExtraValue, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	return u
}
