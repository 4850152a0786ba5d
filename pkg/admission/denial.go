package admission

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StatusError is the API error a denied write is answered with, ready for
// apierror.Write; nil when r allows. Like kube-apiserver with a webhook's
// denial, it never has a code below 400 (it uses 400, as kube does) or a
// status other than Failure, and says the request was denied when the
// admitter gave no message.
func (r *Result) StatusError() error {
	if r == nil || r.Allowed {
		return nil
	}
	var s metav1.Status
	if r.Status != nil {
		s = *r.Status
	}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	s.Status = metav1.StatusFailure
	if s.Reason == "" {
		s.Reason = reasonFor(s.Code)
	}
	switch {
	case s.Message != "":
	case s.Reason != "":
		s.Message = "admission denied the request: " + string(s.Reason)
	default:
		s.Message = "admission denied the request without explanation"
	}
	return &apierrors.StatusError{ErrStatus: s}
}

// reasonFor is the Status reason Kubernetes uses with an HTTP code.
func reasonFor(code int32) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		return metav1.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	}
	return metav1.StatusReasonUnknown
}
