package kubeplugin

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// denial is a plugin's error as kube-apiserver answers it: an API error's
// Status unchanged (admission.NewForbidden, NewBadRequest, …), filled in as
// kube's error writer fills it, and any other error as its 500 carrying
// the error's text.
func denial(err error) *admission.Result {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return &admission.Result{Status: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonUnknown, Message: err.Error(),
		}}
	}
	s := se.Status()
	if s.Status == "" {
		s.Status = metav1.StatusFailure
	}
	if s.Code == 0 {
		s.Code = http.StatusInternalServerError
	}
	return &admission.Result{Status: &s}
}
