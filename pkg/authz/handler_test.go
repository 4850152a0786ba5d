package authz

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// postReview sends body to h and returns the recorder.
func postReview(h http.Handler, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, SubjectAccessReviewPath, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// kubeReview is a review as kube-apiserver's webhook authorizer sends it.
const kubeReview = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
 "spec":{"user":"alice","uid":"1","groups":["dev"],"extra":{"scopes":["a"]},
  "resourceAttributes":{"namespace":"ns","verb":"get","group":"apps","version":"v1","resource":"deployments","subresource":"scale","name":"d"}}}`

func TestHandlerAnswersAsKubeExpects(t *testing.T) {
	var seen Attributes
	h := NewSubjectAccessReviewHandler(AuthorizerFunc(func(_ context.Context, a Attributes) (Result, error) {
		seen = a
		return Result{Decision: DecisionDeny, Reason: "no", Revision: 17}, nil
	}))
	rec := postReview(h, "application/json", kubeReview)
	if rec.Code != http.StatusCreated {
		t.Fatalf("code %d: %s", rec.Code, rec.Body)
	}
	if got := rec.Header().Get(RevisionHeader); got != "17" {
		t.Errorf("%s %q, want 17", RevisionHeader, got)
	}
	var review authorizationv1.SubjectAccessReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
		t.Fatal(err)
	}
	if review.Kind != "SubjectAccessReview" || review.APIVersion != "authorization.k8s.io/v1" {
		t.Errorf("type %+v", review.TypeMeta)
	}
	want := authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "no"}
	if review.Status != want {
		t.Errorf("status %+v, want %+v", review.Status, want)
	}
	if review.Spec.User != "alice" || review.Spec.ResourceAttributes == nil {
		t.Errorf("spec not echoed: %+v", review.Spec)
	}
	if seen.User.Extra["scopes"][0] != "a" || seen.Subresource != "scale" || seen.APIGroup != "apps" {
		t.Errorf("authorizer saw %+v", seen)
	}
}

func TestHandlerStatus(t *testing.T) {
	cases := []struct {
		name string
		res  Result
		err  error
		want authorizationv1.SubjectAccessReviewStatus
	}{
		{"allow", Result{Decision: DecisionAllow, Reason: "ok"}, nil, authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "ok"}},
		{"no opinion", Result{Decision: DecisionNoOpinion, Reason: "?"}, nil, authorizationv1.SubjectAccessReviewStatus{Reason: "?"}},
		{"evaluation error", Result{Decision: DecisionNoOpinion}, errors.New("store down"), authorizationv1.SubjectAccessReviewStatus{EvaluationError: "store down"}},
	}
	for _, c := range cases {
		h := NewSubjectAccessReviewHandler(AuthorizerFunc(func(context.Context, Attributes) (Result, error) { return c.res, c.err }))
		rec := postReview(h, "", kubeReview)
		var review authorizationv1.SubjectAccessReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %v", c.name, rec.Code, err)
		}
		if review.Status != c.want {
			t.Errorf("%s: status %+v, want %+v", c.name, review.Status, c.want)
		}
		if rec.Header().Get(RevisionHeader) != "" {
			t.Errorf("%s: revision header for an unversioned answer", c.name)
		}
	}
}

func TestHandlerNilAuthorizerNeverAllows(t *testing.T) {
	rec := postReview(NewSubjectAccessReviewHandler(nil), "", kubeReview)
	var review authorizationv1.SubjectAccessReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
		t.Fatal(err)
	}
	if review.Status.Allowed || review.Status.EvaluationError == "" {
		t.Fatalf("status %+v", review.Status)
	}
}

func TestHandlerRejects(t *testing.T) {
	nonResource := `{"spec":{"user":"a","nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`
	cases := []struct {
		name        string
		method      string
		contentType string
		body        string
		code        int
		reason      metav1.StatusReason
	}{
		{"GET", http.MethodGet, "", "", 405, metav1.StatusReasonMethodNotAllowed},
		{"not JSON", http.MethodPost, "", "{", 400, metav1.StatusReasonBadRequest},
		{"text", http.MethodPost, "text/plain", nonResource, 415, metav1.StatusReasonUnsupportedMediaType},
		{"another kind", http.MethodPost, "", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"x"}}`, 400, metav1.StatusReasonBadRequest},
		{"no attributes", http.MethodPost, "", `{"spec":{"user":"a"}}`, 422, metav1.StatusReasonInvalid},
		{"both attributes", http.MethodPost, "", `{"spec":{"user":"a","resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"verb":"get"}}}`, 422, metav1.StatusReasonInvalid},
		{"no user or group", http.MethodPost, "", `{"spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`, 422, metav1.StatusReasonInvalid},
		{"too large", http.MethodPost, "", `{"spec":{"user":"` + strings.Repeat("a", maxReviewBytes) + `"}}`, 413, metav1.StatusReasonRequestEntityTooLarge},
	}
	h := NewSubjectAccessReviewHandler(AlwaysAllow())
	for _, c := range cases {
		req := httptest.NewRequest(c.method, SubjectAccessReviewPath, strings.NewReader(c.body))
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
			t.Fatalf("%s: body is not a Status: %v", c.name, err)
		}
		if rec.Code != c.code || status.Reason != c.reason {
			t.Errorf("%s: %d %s, want %d %s (%s)", c.name, rec.Code, status.Reason, c.code, c.reason, status.Message)
		}
	}
	// The same non-resource review, well-formed, is answered.
	if rec := postReview(h, "application/json; charset=utf-8", nonResource); rec.Code != http.StatusCreated {
		t.Errorf("well-formed review: %d %s", rec.Code, rec.Body)
	}
}
