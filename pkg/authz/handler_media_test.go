package authz

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/webhook/webhooktest"
)

// clientReview is a review as client-go's typed client sends it.
func clientReview(user string) *authorizationv1.SubjectAccessReview {
	return &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: []string{"dev"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "get", Resource: "pods"}},
	}
}

// TestHandlerProtobuf: a client-go typed client's review is read and
// answered in webhooktest.Protobuf, with the same decision and revision as JSON.
func TestHandlerProtobuf(t *testing.T) {
	var seen Attributes
	h := NewSubjectAccessReviewHandler(AuthorizerFunc(func(_ context.Context, a Attributes) (Result, error) {
		seen = a
		return Result{Decision: DecisionAllow, Reason: "ok", Revision: 9}, nil
	}))
	rec := webhooktest.Post(h, SubjectAccessReviewPath, webhooktest.Protobuf, webhooktest.ClientGoAccept, webhooktest.Encode(t, webhooktest.Protobuf, clientReview("alice")))
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != webhooktest.Protobuf || rec.Header().Get(RevisionHeader) != "9" {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	var got authorizationv1.SubjectAccessReview
	if _, _, err := webhooktest.Serializer(t, webhooktest.Protobuf).Decode(rec.Body.Bytes(), nil, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != (authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "ok"}) || got.Spec.User != "alice" {
		t.Errorf("answer %+v", got)
	}
	if seen.User.Username != "alice" || seen.Resource != "pods" || seen.Namespace != "ns" {
		t.Errorf("authorizer saw %+v", seen)
	}
}

// TestHandlerAnswersAsAccepted: the answer's media type follows Accept,
// whatever the request's; JSON when nothing else is preferred.
func TestHandlerAnswersAsAccepted(t *testing.T) {
	h := NewSubjectAccessReviewHandler(AlwaysAllow())
	cases := []struct{ contentType, accept, want string }{
		{webhooktest.Protobuf, "", runtime.ContentTypeJSON},
		{webhooktest.Protobuf, "application/json", runtime.ContentTypeJSON},
		{runtime.ContentTypeJSON, webhooktest.ClientGoAccept, webhooktest.Protobuf},
		{runtime.ContentTypeYAML, "application/yaml", runtime.ContentTypeYAML},
	}
	for _, c := range cases {
		rec := webhooktest.Post(h, SubjectAccessReviewPath, c.contentType, c.accept, webhooktest.Encode(t, c.contentType, clientReview("bob")))
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != c.want {
			t.Errorf("%s accepting %q: %d %q", c.contentType, c.accept, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		var got authorizationv1.SubjectAccessReview
		if _, _, err := webhooktest.Serializer(t, c.want).Decode(rec.Body.Bytes(), nil, &got); err != nil || !got.Status.Allowed {
			t.Errorf("%s accepting %q: %+v %v", c.contentType, c.accept, got.Status, err)
		}
	}
}

func TestHandlerRejectsProtobuf(t *testing.T) {
	good := webhooktest.Encode(t, webhooktest.Protobuf, clientReview("alice"))
	noAttributes := clientReview("alice")
	noAttributes.Spec.ResourceAttributes = nil
	huge := clientReview(strings.Repeat("a", maxReviewBytes))
	tokenReview := &authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: "t"}}
	cases := []struct {
		name   string
		body   []byte
		code   int
		reason metav1.StatusReason
	}{
		{"malformed", good[:len(good)/2], 400, metav1.StatusReasonBadRequest},
		{"not protobuf", []byte(`{"spec":{}}`), 400, metav1.StatusReasonBadRequest},
		{"another kind", webhooktest.Encode(t, webhooktest.Protobuf, tokenReview), 400, metav1.StatusReasonBadRequest},
		{"invalid", webhooktest.Encode(t, webhooktest.Protobuf, noAttributes), 422, metav1.StatusReasonInvalid},
		{"too large", webhooktest.Encode(t, webhooktest.Protobuf, huge), 413, metav1.StatusReasonRequestEntityTooLarge},
	}
	h := NewSubjectAccessReviewHandler(AlwaysAllow())
	for _, c := range cases {
		rec := webhooktest.Post(h, SubjectAccessReviewPath, webhooktest.Protobuf, webhooktest.ClientGoAccept, c.body)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
			t.Fatalf("%s: body is not a JSON Status: %v", c.name, err)
		}
		if rec.Code != c.code || status.Reason != c.reason {
			t.Errorf("%s: %d %s, want %d %s (%s)", c.name, rec.Code, status.Reason, c.code, c.reason, status.Message)
		}
	}
}
