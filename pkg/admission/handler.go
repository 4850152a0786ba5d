package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
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
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		apierror.Write(w, apierrors.NewMethodNotSupported(admissionReviews, r.Method))
		return
	}
	req, err := readReview(w, r)
	if err != nil {
		apierror.Write(w, err)
		return
	}
	res, err := admit(r.Context(), h.admitter, attributesOf(req))
	if err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	body, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: reviewTypeMeta, Response: responseOf(req.UID, res)})
	if err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}

// readReview reads and checks the posted review; its errors are API errors
// ready to write.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionRequest, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, unsupportedMediaType(ct)
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxReviewBytes))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", MaxReviewBytes))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest("reading AdmissionReview: " + err.Error())
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, apierrors.NewBadRequest("decoding AdmissionReview: " + err.Error())
	}
	if err := checkRequest(&review); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return review.Request, nil
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

// unsupportedMediaType is kube's 415: the webhook protocol is JSON.
func unsupportedMediaType(ct string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json; got %q", ct),
	}}
}
