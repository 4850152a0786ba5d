// Package webhooktest speaks to the review endpoints as client-go's typed
// clients do, for the tests of the packages that serve them: protobuf or
// JSON bodies of the review kinds, and client-go's default Accept.
package webhooktest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// Protobuf is Kubernetes' protobuf media type.
const Protobuf = runtime.ContentTypeProtobuf

// ClientGoAccept is what client-go's typed clients ask for by default.
const ClientGoAccept = Protobuf + "," + runtime.ContentTypeJSON

// codecs encode and decode as client-go does the two review kinds, so a
// test can send one endpoint the other's kind.
var codecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	s.AddKnownTypes(authorizationv1.SchemeGroupVersion, &authorizationv1.SubjectAccessReview{})
	s.AddKnownTypes(authenticationv1.SchemeGroupVersion, &authenticationv1.TokenReview{})
	return serializer.NewCodecFactory(s)
}()

// Serializer is client-go's serializer for mediaType.
func Serializer(t testing.TB, mediaType string) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	return info.Serializer
}

// Encode is obj in mediaType.
func Encode(t testing.TB, mediaType string, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Serializer(t, mediaType).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Post sends body to h at path as contentType, asking for accept (none
// when empty).
func Post(h http.Handler, path, contentType, accept string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
