package authn

import (
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/webhook/webhooktest"
)

func tokenReviewOf(token string) *authenticationv1.TokenReview {
	return &authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: token},
	}
}

// TestTokenReviewHandlerProtobuf: a client-go typed client's review is
// read and answered in webhooktest.Protobuf, token not echoed.
func TestTokenReviewHandlerProtobuf(t *testing.T) {
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	rec := webhooktest.Post(h, TokenReviewPath, webhooktest.Protobuf, webhooktest.ClientGoAccept, webhooktest.Encode(t, webhooktest.Protobuf, tokenReviewOf("admin-token")))
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != webhooktest.Protobuf {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	var got authenticationv1.TokenReview
	if _, _, err := webhooktest.Serializer(t, webhooktest.Protobuf).Decode(rec.Body.Bytes(), nil, &got); err != nil {
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
		{webhooktest.Protobuf, "", runtime.ContentTypeJSON},
		{webhooktest.Protobuf, "application/json, application/vnd.kubernetes.protobuf", runtime.ContentTypeJSON},
		{runtime.ContentTypeJSON, webhooktest.ClientGoAccept, webhooktest.Protobuf},
		{runtime.ContentTypeYAML, "application/yaml", runtime.ContentTypeYAML},
	}
	for _, c := range cases {
		rec := webhooktest.Post(h, TokenReviewPath, c.contentType, c.accept, webhooktest.Encode(t, c.contentType, tokenReviewOf("bob-token")))
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != c.want {
			t.Errorf("%s accepting %q: %d %q", c.contentType, c.accept, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		var got authenticationv1.TokenReview
		if _, _, err := webhooktest.Serializer(t, c.want).Decode(rec.Body.Bytes(), nil, &got); err != nil || got.Status.User.Username != "bob" {
			t.Errorf("%s accepting %q: %+v %v", c.contentType, c.accept, got.Status, err)
		}
	}
}

func TestTokenReviewHandlerRejectsProtobuf(t *testing.T) {
	good := webhooktest.Encode(t, webhooktest.Protobuf, tokenReviewOf("alice-token"))
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
		{"another kind", "BadRequest", webhooktest.Encode(t, webhooktest.Protobuf, sar), 400},
		{"no token", "BadRequest", webhooktest.Encode(t, webhooktest.Protobuf, tokenReviewOf("")), 400},
		{"oversized", "RequestEntityTooLarge", webhooktest.Encode(t, webhooktest.Protobuf, tokenReviewOf(strings.Repeat("x", MaxTokenReviewBytes))), 413},
	}
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	for _, c := range cases {
		rec := webhooktest.Post(h, TokenReviewPath, webhooktest.Protobuf, webhooktest.ClientGoAccept, c.body)
		if rec.Code != c.code {
			t.Errorf("%s: code %d, want %d; body %q", c.name, rec.Code, c.code, rec.Body)
			continue
		}
		checkStatus(t, rec, c.reason)
	}
}
