package authn

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

const protobuf = runtime.ContentTypeProtobuf

// clientGoAccept is what client-go's typed clients ask for by default.
const clientGoAccept = "application/vnd.kubernetes.protobuf,application/json"

// clientCodecs encode and decode as client-go does, and know a kind that
// is not a TokenReview.
var clientCodecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	s.AddKnownTypes(authenticationv1.SchemeGroupVersion, &authenticationv1.TokenReview{})
	s.AddKnownTypes(authorizationv1.SchemeGroupVersion, &authorizationv1.SubjectAccessReview{})
	return serializer.NewCodecFactory(s)
}()

func serializerFor(t *testing.T, mediaType string) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(clientCodecs.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	return info.Serializer
}

func encode(t *testing.T, mediaType string, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := serializerFor(t, mediaType).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postTyped sends body as contentType, asking for accept.
func postTyped(h http.Handler, contentType, accept string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, TokenReviewPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func tokenReviewOf(token string) *authenticationv1.TokenReview {
	return &authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: token},
	}
}

// TestTokenReviewHandlerProtobuf: a client-go typed client's review is
// read and answered in protobuf, token not echoed.
func TestTokenReviewHandlerProtobuf(t *testing.T) {
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	rec := postTyped(h, protobuf, clientGoAccept, encode(t, protobuf, tokenReviewOf("admin-token")))
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != protobuf {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	var got authenticationv1.TokenReview
	if _, _, err := serializerFor(t, protobuf).Decode(rec.Body.Bytes(), nil, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Status.Authenticated || got.Status.User.Username != "admin" || got.Spec.Token != "" {
		t.Errorf("answer %+v", got)
	}
}

// TestTokenReviewHandlerAnswersAsAccepted: the answer's media type follows
// Accept, whatever the request's; JSON when nothing else is preferred.
func TestTokenReviewHandlerAnswersAsAccepted(t *testing.T) {
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	cases := []struct{ contentType, accept, want string }{
		{protobuf, "", runtime.ContentTypeJSON},
		{protobuf, "application/json, application/vnd.kubernetes.protobuf", runtime.ContentTypeJSON},
		{runtime.ContentTypeJSON, clientGoAccept, protobuf},
		{runtime.ContentTypeYAML, "application/yaml", runtime.ContentTypeYAML},
	}
	for _, c := range cases {
		rec := postTyped(h, c.contentType, c.accept, encode(t, c.contentType, tokenReviewOf("bob-token")))
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != c.want {
			t.Errorf("%s accepting %q: %d %q", c.contentType, c.accept, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		var got authenticationv1.TokenReview
		if _, _, err := serializerFor(t, c.want).Decode(rec.Body.Bytes(), nil, &got); err != nil || got.Status.User.Username != "bob" {
			t.Errorf("%s accepting %q: %+v %v", c.contentType, c.accept, got.Status, err)
		}
	}
}

func TestTokenReviewHandlerRejectsProtobuf(t *testing.T) {
	good := encode(t, protobuf, tokenReviewOf("alice-token"))
	sar := &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec:     authorizationv1.SubjectAccessReviewSpec{User: "alice"}}
	cases := []struct {
		name, reason string
		body         []byte
		code         int
	}{
		{"malformed", "BadRequest", good[:len(good)/2], 400},
		{"not protobuf", "BadRequest", []byte(`{"spec":{"token":"alice-token"}}`), 400},
		{"another kind", "BadRequest", encode(t, protobuf, sar), 400},
		{"no token", "BadRequest", encode(t, protobuf, tokenReviewOf("")), 400},
		{"oversized", "RequestEntityTooLarge", encode(t, protobuf, tokenReviewOf(strings.Repeat("x", MaxTokenReviewBytes))), 413},
	}
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	for _, c := range cases {
		rec := postTyped(h, protobuf, clientGoAccept, c.body)
		if rec.Code != c.code {
			t.Errorf("%s: code %d, want %d; body %q", c.name, rec.Code, c.code, rec.Body)
			continue
		}
		checkStatus(t, rec, c.reason)
	}
}
