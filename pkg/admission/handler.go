package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// MaxReviewBytes bounds an AdmissionReview body, in either direction:
// kube-apiserver's limit for a whole request.
const MaxReviewBytes = 3 << 20

// admissionReviews names the resource in error messages.
var admissionReviews = schema.GroupResource{Group: admissionv1.GroupName, Resource: "admissionreviews"}

// reviewHandler serves an Admitter as an AdmissionReview webhook.
type reviewHandler struct {
	admitter Admitter
}

// NewAdmissionReviewHandler serves a as an admission.k8s.io/v1
// AdmissionReview webhook, as kube-apiserver calls one: POST a review, get
// 200 and a review whose response has the request's uid, the decision, the
// denial's status, the patch with patchType JSONPatch, warnings and audit
// annotations. So WebhookClient and a real kube-apiserver (a mutating or
// validating webhook configuration) can both use it. Serve a mutating
// admitter (or a chain holding one) for patches to be sent: a patch from a
// validating one is an error.
//
// An admitter that cannot decide is answered with 500 and a Status rather
// than a denial, so that callers can tell "no" from "no answer"; kube's
// default failurePolicy, Fail, rejects the write on it too. A malformed
// review is a 400, an oversized one 413, one that is not JSON 415. A nil a
// answers every review with 500.
func NewAdmissionReviewHandler(a Admitter) http.Handler {
	if a == nil {
		a = AdmitterFunc(func(context.Context, *Attributes) (*Result, error) { return nil, ErrNoAdmitter })
	}
	return &reviewHandler{admitter: a}
}

// ServeHTTP implements http.Handler.
func (h *reviewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if !webhook.DecodeRequest(w, r, admissionReviews, MaxReviewBytes, &review) {
		return
	}
	if err := checkRequest(&review); err != nil {
		apierror.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	req := review.Request
	res, err := Ask(r.Context(), PhaseOf(h.admitter), h.admitter, attributesOf(req))
	if err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	webhook.WriteJSON(w, http.StatusOK, &admissionv1.AdmissionReview{TypeMeta: reviewTypeMeta, Response: responseOf(req.UID, res)})
}

// checkRequest is what a webhook needs of a review to answer it.
func checkRequest(review *admissionv1.AdmissionReview) error {
	if review.TypeMeta != reviewTypeMeta {
		return fmt.Errorf("expected %s %s, got %q %q",
			reviewTypeMeta.APIVersion, reviewTypeMeta.Kind, review.APIVersion, review.Kind)
	}
	req := review.Request
	switch {
	case req == nil:
		return errors.New("AdmissionReview has no request")
	case req.UID == "":
		// The answer must echo it; without one it cannot be matched.
		return errors.New("AdmissionReview request has no uid")
	case !validOperations[req.Operation]:
		return fmt.Errorf("AdmissionReview request has unknown operation %q", req.Operation)
	}
	return nil
}
