package authn

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// serve sends one GET with the given Authorization headers through h.
func serve(h http.Handler, authorization ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	for _, v := range authorization {
		req.Header.Add("Authorization", v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// reached is a next handler that records whether it was called.
func reached(called *bool) http.Handler {
	return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { *called = true })
}

func TestMiddlewareRejectsMalformedHeaders(t *testing.T) {
	a := newTestTokenFile(t, testTokens)
	for _, headers := range [][]string{
		{"Bearer"},
		{"Bearer  alice-token"},
		{"Bearer alice-token extra"},
		{"Bearer\talice-token"},
		{"Token alice-token"},
		{"alice-token"},
		{"Bearer alice-token", "Bearer alice-token"},
	} {
		var called bool
		rec := serve(WithAuthentication(a, Options{Anonymous: true})(reached(&called)), headers...)
		if rec.Code != http.StatusUnauthorized || called {
			t.Errorf("%q: code %d, next called %v; want 401 and not called", headers, rec.Code, called)
		}
	}
}

// TestMiddlewareFailsClosedWhenWebhookDown: an authn service that is not
// listening gives 503 with Retry-After, never a pass and never anonymous.
func TestMiddlewareFailsClosedWhenWebhookDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + TokenReviewPath
	srv.Close()
	c, err := NewWebhookClient(WebhookConfig{Config: webhook.Config{URL: url, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var cause error
	var called bool
	h := WithAuthentication(c, Options{Anonymous: true, OnError: func(_ *http.Request, err error) { cause = err }})(reached(&called))
	rec := serve(h, "Bearer alice-token")
	if rec.Code != http.StatusServiceUnavailable || called {
		t.Fatalf("code %d, next called %v; want 503 and not called", rec.Code, called)
	}
	if rec.Header().Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q, want 1", rec.Header().Get("Retry-After"))
	}
	checkStatus(t, rec, "ServiceUnavailable")
	if !errors.Is(cause, ErrWebhookUnavailable) {
		t.Errorf("OnError got %v, want ErrWebhookUnavailable", cause)
	}
}

// TestMiddlewareFailsClosedOnWebhookTimeout: an authn service that does not
// answer in time gives 503, within the client's timeout.
func TestMiddlewareFailsClosedOnWebhookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewWebhookClient(WebhookConfig{Config: webhook.Config{URL: srv.URL, Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var called bool
	rec := serve(WithAuthentication(c, Options{RetryAfter: 1500 * time.Millisecond})(reached(&called)), "Bearer alice-token")
	if rec.Code != http.StatusServiceUnavailable || called {
		t.Fatalf("code %d, next called %v; want 503 and not called", rec.Code, called)
	}
	if got := rec.Header().Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2 (1.5s rounded up)", got)
	}
}

func TestMiddlewareFailsClosedOnBrokenAuthenticators(t *testing.T) {
	noUser := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) { return nil, true, nil })
	for name, a := range map[string]Authenticator{"nil authenticator": nil, "recognised without user": noUser} {
		var called bool
		rec := serve(WithAuthentication(a, Options{})(reached(&called)), "Bearer alice-token")
		if rec.Code != http.StatusServiceUnavailable || called {
			t.Errorf("%s: code %d, next called %v; want 503 and not called", name, rec.Code, called)
		}
	}
}

func TestMiddlewareDoesNotChangeAuthenticatorsUser(t *testing.T) {
	stored := &Response{}
	stored.User.Username, stored.User.Groups = "dave", make([]string, 1, 4)
	a := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) { return stored, true, nil })
	serve(WithAuthentication(a, Options{})(http.NotFoundHandler()), "Bearer x")
	if len(stored.User.Groups) != 1 || stored.User.Groups[:2][1] != "" {
		t.Errorf("middleware wrote into the authenticator's groups: %q", stored.User.Groups[:2])
	}
}

func TestMiddlewareKeepsAuthenticatedGroupOnce(t *testing.T) {
	a := newTestTokenFile(t, "t,erin,uid-erin,system:authenticated\n")
	var groups []string
	h := WithAuthentication(a, Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		groups = u.Groups
	}))
	serve(h, "Bearer t")
	if len(groups) != 1 || groups[0] != AllAuthenticated {
		t.Errorf("groups %q, want [system:authenticated]", groups)
	}
}
