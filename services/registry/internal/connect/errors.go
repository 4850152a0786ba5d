package connect

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AsStatus is the error a client gets for err, as kube writes it: an API
// error as it is, anything else (a kubelet that does not answer) a 500
// whose message is the error's text with no reason, which is what kube's
// ErrorToAPIStatus makes of an error that is not a Status.
func AsStatus(err error) error {
	if err == nil {
		return nil
	}
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error(),
	}}
}

// responder writes the errors kube's upgrade-aware proxy reports.
type responder struct{}

// Error implements proxy.ErrorResponder.
func (r responder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	writeStatus(w, AsStatus(err))
}
