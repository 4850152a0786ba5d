package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// DecodeRequest reads a posted review of resource into into, as
// kube-apiserver's create handler would: anything but POST is a 405 (with
// Allow), a media type other than JSON a 415, a body over maxBytes a 413,
// and a body that is not one JSON document a 400. On failure it has written
// that Status and returns false; the caller just returns. An absent
// Content-Type is taken as JSON, as kube's clients sometimes omit it.
func DecodeRequest(w http.ResponseWriter, r *http.Request, resource schema.GroupResource, maxBytes int64, into any) bool {
	if err := decodeRequest(w, r, resource, maxBytes, into); err != nil {
		apierror.Write(w, err)
		return false
	}
	return true
}

// decodeRequest is DecodeRequest's checks; its errors are API errors ready
// to write.
func decodeRequest(w http.ResponseWriter, r *http.Request, resource schema.GroupResource, maxBytes int64, into any) error {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return apierrors.NewMethodNotSupported(resource, r.Method)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return unsupportedMediaType(ct)
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", maxBytes))
	}
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("reading %s: %v", resource, err))
	}
	// Unmarshal, not a Decoder: a second document after the first is an
	// error, not silently ignored.
	if err := json.Unmarshal(data, into); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("decoding %s: %v", resource, err))
	}
	return nil
}

// unsupportedMediaType is kube's 415: the webhook protocols are JSON.
func unsupportedMediaType(ct string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json; got %q", ct),
	}}
}
