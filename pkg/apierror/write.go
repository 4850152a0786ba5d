// Package apierror writes every HTTP error a kubesplit service returns, as
// the metav1.Status body with the reason and code kube-apiserver uses, so
// that kubectl and client-go recognise it (NotFound, Conflict, Invalid …).
package apierror

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Status turns any error into the Status a client receives. Errors that are
// not already API errors become 500 InternalError.
func Status(err error) *metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		s := api.Status()
		if s.Code == 0 {
			s.Code = http.StatusInternalServerError
		}
		return &s
	}
	s := apierrors.NewInternalError(err).ErrStatus
	return &s
}

// Write sends err as a Status. Status is always JSON: client-go decodes an
// error body by its Content-Type, whatever it asked for.
func Write(w http.ResponseWriter, err error) {
	s := Status(err)
	s.Kind = "Status"
	s.APIVersion = "v1"
	if s.Status == "" {
		s.Status = metav1.StatusFailure
	}
	if d := s.Details; d != nil && d.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	body, _ := json.Marshal(s)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(s.Code))
	_, _ = w.Write(append(body, '\n'))
}
