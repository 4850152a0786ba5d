package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// DecodeRequest reads a posted review of resource into into, as
// kube-apiserver's create handler would: anything but POST is a 405 (with
// Allow), a media type other than JSON a 415, a body over maxBytes a 413,
// and a body that is not one JSON document a 400. On failure it has written
// that Status and returns false; the caller just returns. An absent
// Content-Type is taken as JSON, as kube's clients sometimes omit it.
// JSON only is kube's webhook contract (AdmissionReview above all);
// Codec.DecodeRequest also reads the other media types of built-in kinds.
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
	if err := checkMethod(w, r, resource); err != nil {
		return err
	}
	if contentType(r) != runtime.ContentTypeJSON {
		return unsupportedMediaType(r.Header.Get("Content-Type"), runtime.ContentTypeJSON)
	}
	data, err := readBody(w, r, resource, maxBytes)
	if err != nil {
		return err
	}
	return decodeJSON(data, resource, into)
}

// checkMethod refuses anything but the POST that creates a review.
func checkMethod(w http.ResponseWriter, r *http.Request, resource schema.GroupResource) error {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return apierrors.NewMethodNotSupported(resource, r.Method)
	}
	return nil
}

// contentType is the request's media type without parameters: JSON when
// absent, "" when unparsable (which no endpoint supports).
func contentType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return runtime.ContentTypeJSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// readBody reads the whole body, refusing one over maxBytes.
func readBody(w http.ResponseWriter, r *http.Request, resource schema.GroupResource, maxBytes int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", maxBytes))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("reading %s: %v", resource, err))
	}
	return data, nil
}

// decodeJSON decodes one JSON document. Unmarshal, not a Decoder: a second
// document after the first is an error, not silently ignored.
func decodeJSON(data []byte, resource schema.GroupResource, into any) error {
	if err := json.Unmarshal(data, into); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("decoding %s: %v", resource, err))
	}
	return nil
}

// unsupportedMediaType is kube's 415, naming what the endpoint accepts.
func unsupportedMediaType(ct string, accepted ...string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s; got %q",
			strings.Join(accepted, ", "), ct),
	}}
}
