package serviceaccount

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// tokenRequestKind is the only kind the TokenRequest handler reads.
var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// codec reads and writes TokenRequests in the media types kube serves
// (JSON, YAML, protobuf): client-go, and so kubectl create token, sends
// protobuf by default.
type codec struct {
	factory serializer.CodecFactory
}

// newCodec builds a codec whose scheme knows only authentication.k8s.io/v1,
// so any other kind in a body is refused rather than misread.
func newCodec() (*codec, error) {
	scheme := runtime.NewScheme()
	if err := authenticationv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("serviceaccount: scheme: %w", err)
	}
	return &codec{factory: serializer.NewCodecFactory(scheme)}, nil
}

// decode reads a TokenRequest sent as contentType (JSON when empty). A body
// without apiVersion and kind is taken to be a TokenRequest, as kube does.
func (c *codec) decode(contentType string, body []byte) (*authenticationv1.TokenRequest, error) {
	mediaType := "application/json"
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, unsupportedMediaType(contentType)
		}
		mediaType = mt
	}
	info, ok := runtime.SerializerInfoForMediaType(c.factory.SupportedMediaTypes(), mediaType)
	if !ok {
		return nil, unsupportedMediaType(contentType)
	}
	obj, gvk, err := info.Serializer.Decode(body, &tokenRequestKind, &authenticationv1.TokenRequest{})
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot decode TokenRequest: %v", err))
	}
	tr, ok := obj.(*authenticationv1.TokenRequest)
	if !ok || gvk == nil || *gvk != tokenRequestKind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("body is %v, want %v", gvk, tokenRequestKind))
	}
	return tr, nil
}

// write sends obj with status code in the first media type of accept the
// codec supports, and JSON when there is none: a client that accepts
// nothing we speak is better served JSON than a 406 after a token was
// already signed.
func (c *codec) write(w http.ResponseWriter, accept string, code int, obj runtime.Object) error {
	info := c.negotiate(accept)
	data, err := runtime.Encode(c.factory.EncoderForVersion(info.Serializer, authenticationv1.SchemeGroupVersion), obj)
	if err != nil {
		return fmt.Errorf("serviceaccount: encoding %T: %w", obj, err)
	}
	w.Header().Set("Content-Type", info.MediaType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(data)
	return nil
}

// negotiate picks the serializer for an Accept header, ignoring quality
// values (clients list what they prefer first).
func (c *codec) negotiate(accept string) runtime.SerializerInfo {
	supported := c.factory.SupportedMediaTypes()
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if info, ok := runtime.SerializerInfoForMediaType(supported, mt); ok {
			return info
		}
	}
	info, _ := runtime.SerializerInfoForMediaType(supported, runtime.ContentTypeJSON)
	return info
}

// unsupportedMediaType is kube's 415 for a body it cannot read.
func unsupportedMediaType(contentType string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "create",
		schema.GroupResource{Resource: "serviceaccounts"}, "", fmt.Sprintf("the body of the request was in an unknown format %q", contentType), 0, false)
}
