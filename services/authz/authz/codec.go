package authz

import (
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
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// maxSelfReviewBytes bounds a self review's body, as kube-apiserver bounds
// any request's; a review is far smaller.
const maxSelfReviewBytes = 3 << 20

// The media types the self reviews speak: kubectl sends protobuf by
// default, and JSON is every other client's.
const (
	mediaJSON     = runtime.ContentTypeJSON
	mediaProtobuf = runtime.ContentTypeProtobuf
)

// decodeObject reads r's body into into, in JSON or protobuf as its
// Content-Type says; a body without apiVersion and kind is read as gvk, as
// kube's create handler reads one. When it cannot it has written the
// Status error kube would give and returns false.
func decodeObject(w http.ResponseWriter, r *http.Request, gvk schema.GroupVersionKind, into runtime.Object) bool {
	media := mediaJSON
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != mediaJSON && mt != mediaProtobuf) {
			apierror.Write(w, unsupportedMediaType(ct))
			return false
		}
		media = mt
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSelfReviewBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			apierror.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", maxSelfReviewBytes)))
			return false
		}
		apierror.Write(w, apierrors.NewBadRequest(err.Error()))
		return false
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), media)
	obj, got, err := info.Serializer.Decode(body, &gvk, into)
	if err != nil {
		apierror.Write(w, apierrors.NewBadRequest(fmt.Sprintf("decoding %s: %v", gvk.Kind, err)))
		return false
	}
	if *got != gvk || obj != into {
		apierror.Write(w, apierrors.NewBadRequest(fmt.Sprintf("expected %s, got %s", gvk, got)))
		return false
	}
	return true
}

// writeObject answers obj with code, as the version gv, in the first
// media type of r's Accept header that it speaks (JSON when none is).
func writeObject(w http.ResponseWriter, r *http.Request, code int, gv schema.GroupVersion, obj runtime.Object) {
	media, ok := webhook.Negotiate(r.Header.Get("Accept"), []string{mediaJSON, mediaProtobuf})
	if !ok {
		apierror.Write(w, webhook.NotAcceptable([]string{mediaJSON, mediaProtobuf}))
		return
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), media)
	var buf strings.Builder
	if err := scheme.Codecs.EncoderForVersion(info.Serializer, gv).Encode(obj, &buf); err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", media)
	w.WriteHeader(code)
	_, _ = io.WriteString(w, buf.String())
}

// unsupportedMediaType is kube's 415 for a body it cannot read.
func unsupportedMediaType(ct string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: %s, %s", ct, mediaJSON, mediaProtobuf),
	}}
}
