package authn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// postReview sends body to h as a TokenReview creation.
func postReview(h http.Handler, method, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, TokenReviewPath, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTokenReviewHandlerRejectsBadRequests(t *testing.T) {
	h := NewTokenReviewHandler(newTestTokenFile(t, testTokens))
	good := `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"alice-token"}}`
	cases := []struct {
		name, method, contentType, body string
		code                            int
		reason                          string
	}{
		{"GET", http.MethodGet, "", "", 405, "MethodNotAllowed"},
		{"CBOR", http.MethodPost, "application/cbor", good, 415, "UnsupportedMediaType"},
		{"garbage content type", http.MethodPost, "application/json; =", good, 415, "UnsupportedMediaType"},
		{"malformed JSON", http.MethodPost, "application/json", `{"spec":`, 400, "BadRequest"},
		{"not an object", http.MethodPost, "application/json", `["token"]`, 400, "BadRequest"},
		{"wrong kind", http.MethodPost, "application/json", `{"kind":"SubjectAccessReview","apiVersion":"authentication.k8s.io/v1","spec":{"token":"t"}}`, 400, "BadRequest"},
		{"wrong version", http.MethodPost, "application/json", `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1beta1","spec":{"token":"t"}}`, 400, "BadRequest"},
		{"no token", http.MethodPost, "application/json", `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":{}}`, 400, "BadRequest"},
		{"oversized", http.MethodPost, "application/json", `{"spec":{"token":"` + strings.Repeat("x", MaxTokenReviewBytes) + `"}}`, 413, "RequestEntityTooLarge"},
	}
	for _, c := range cases {
		rec := postReview(h, c.method, c.contentType, c.body)
		if rec.Code != c.code {
			t.Errorf("%s: code %d, want %d; body %s", c.name, rec.Code, c.code, rec.Body)
			continue
		}
		checkStatus(t, rec, c.reason)
	}
}

func TestTokenReviewHandlerStatus(t *testing.T) {
	foreign := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		r := &Response{Audiences: []string{"someone-else"}}
		r.User.Username = "mallory"
		return r, true, nil
	})
	h := NewTokenReviewHandler(Union(newTestTokenFile(t, testTokens), audienceAware, flaky))
	cases := []struct {
		name      string
		spec      string
		want      authenticationv1.TokenReviewStatus
		handler   http.Handler
		wantError bool
	}{
		{name: "recognised", spec: `{"token":"bob-token"}`, want: authenticationv1.TokenReviewStatus{Authenticated: true,
			User: authenticationv1.UserInfo{Username: "bob", UID: "uid-bob", Groups: []string{"dev", "ops", AllAuthenticated}}}},
		{name: "not recognised", spec: `{"token":"nobody-token"}`},
		{name: "could not decide", spec: `{"token":"flaky-token"}`, wantError: true},
		{name: "audiences asked for", spec: `{"token":"aud-token","audiences":["vault","x"]}`, want: authenticationv1.TokenReviewStatus{Authenticated: true,
			User: authenticationv1.UserInfo{Username: "carol", UID: "uid-carol", Groups: []string{AllAuthenticated}}, Audiences: []string{"vault"}}},
		{name: "other audiences", spec: `{"token":"aud-token","audiences":["x"]}`},
		{name: "authenticator answers for other audiences", spec: `{"token":"t","audiences":["api"]}`, handler: NewTokenReviewHandler(foreign)},
		{name: "nil authenticator", spec: `{"token":"t"}`, handler: NewTokenReviewHandler(nil), wantError: true},
	}
	for _, c := range cases {
		if c.handler == nil {
			c.handler = h
		}
		rec := postReview(c.handler, http.MethodPost, "application/json", `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":`+c.spec+`}`)
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: code %d, content type %q; want 201 JSON", c.name, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		var got authenticationv1.TokenReview
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Kind != "TokenReview" || got.APIVersion != "authentication.k8s.io/v1" || got.Spec.Token != "" {
			t.Errorf("%s: kind %q apiVersion %q token %q", c.name, got.Kind, got.APIVersion, got.Spec.Token)
		}
		if (got.Status.Error != "") != c.wantError {
			t.Errorf("%s: status.error %q", c.name, got.Status.Error)
		}
		got.Status.Error = ""
		if !sameStatus(got.Status, c.want) {
			t.Errorf("%s: status %+v, want %+v", c.name, got.Status, c.want)
		}
	}
}

func TestTokenReviewHandlerAcceptsBareBody(t *testing.T) {
	// kube-apiserver infers kind and version from the path; so do we.
	rec := postReview(NewTokenReviewHandler(newTestTokenFile(t, testTokens)), http.MethodPost, "", `{"spec":{"token":"alice-token"}}`)
	if rec.Code != http.StatusCreated || !strings.Contains(rec.Body.String(), `"authenticated":true`) {
		t.Errorf("code %d body %s", rec.Code, rec.Body)
	}
}

func sameStatus(a, b authenticationv1.TokenReviewStatus) bool {
	return a.Authenticated == b.Authenticated && a.Error == b.Error && sameUser(a.User, b.User) &&
		slices.Equal(a.Audiences, b.Audiences)
}
