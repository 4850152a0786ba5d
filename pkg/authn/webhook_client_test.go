package authn

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// seen is what a test webhook received last.
type seen struct {
	mu                        sync.Mutex
	method, path, contentType string
	body                      []byte
}

func (s *seen) get() seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return seen{method: s.method, path: s.path, contentType: s.contentType, body: s.body}
}

// answering serves one canned answer to every request, recording the last.
func answering(t *testing.T, code int, body string) (*WebhookClient, *seen) {
	t.Helper()
	last := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		last.mu.Lock()
		last.method, last.path, last.contentType, last.body = r.Method, r.URL.Path, r.Header.Get("Content-Type"), b
		last.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := NewWebhookClient(WebhookConfig{Config: webhook.Config{URL: srv.URL + "/authn", Timeout: 5 * time.Second}, ImplicitAudiences: []string{"implied"}})
	if err != nil {
		t.Fatal(err)
	}
	return c, last
}

// review is a TokenReview answer with the given status JSON.
func review(status string) string {
	return `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","status":` + status + `}`
}

// TestWebhookClientFailsClosed: every answer other than a well-formed
// TokenReview is an error, never a recognised token.
func TestWebhookClientFailsClosed(t *testing.T) {
	cases := []struct {
		name string
		code int
		body string
		want error
	}{
		{"server error", 500, `{"kind":"Status","message":"boom"}`, ErrWebhookUnavailable},
		{"unauthorized caller", 401, review(`{"authenticated":true,"user":{"username":"x"}}`), ErrWebhookUnavailable},
		{"redirect-like", 304, "", ErrWebhookUnavailable},
		{"not JSON", 200, "<html>", ErrMalformedReview},
		{"empty", 200, "", ErrMalformedReview},
		{"wrong kind", 200, `{"kind":"Status","apiVersion":"v1","status":{"authenticated":true,"user":{"username":"x"}}}`, ErrMalformedReview},
		{"no kind", 200, `{"status":{"authenticated":true,"user":{"username":"x"}}}`, ErrMalformedReview},
		{"no user name", 200, review(`{"authenticated":true,"user":{"groups":["system:masters"]}}`), ErrMalformedReview},
		{"oversized", 200, review(`{"authenticated":true,"user":{"username":"` + strings.Repeat("x", MaxTokenReviewBytes) + `"}}`), ErrMalformedReview},
		{"reviewer failed", 201, review(`{"error":"ldap down"}`), ErrReviewFailed},
	}
	for _, c := range cases {
		client, _ := answering(t, c.code, c.body)
		resp, ok, err := client.AuthenticateToken(context.Background(), "t")
		if !errors.Is(err, c.want) || ok || resp != nil {
			t.Errorf("%s: got %+v %v %v, want %v", c.name, resp, ok, err, c.want)
		}
	}
}

func TestWebhookClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewWebhookClient(WebhookConfig{Config: webhook.Config{URL: srv.URL, Timeout: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, ok, err := c.AuthenticateToken(context.Background(), "t")
	if ok || !errors.Is(err, ErrWebhookUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v %v, want ErrWebhookUnavailable and DeadlineExceeded", ok, err)
	}
}

func TestWebhookClientSendsTokenReview(t *testing.T) {
	c, rec := answering(t, 201, review(`{"authenticated":false}`))
	ctx := WithAudiences(context.Background(), []string{"api"})
	if _, ok, err := c.AuthenticateToken(ctx, "the-token"); ok || err != nil {
		t.Fatalf("got %v %v, want not recognised", ok, err)
	}
	last := rec.get()
	if last.method != http.MethodPost || last.path != "/authn" || last.contentType != "application/json" {
		t.Errorf("request %s %s %q", last.method, last.path, last.contentType)
	}
	var sent authenticationv1.TokenReview
	if err := json.Unmarshal(last.body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Kind != "TokenReview" || sent.APIVersion != "authentication.k8s.io/v1" ||
		sent.Spec.Token != "the-token" || !slices.Equal(sent.Spec.Audiences, []string{"api"}) {
		t.Errorf("sent %+v", sent)
	}
}

func TestWebhookClientAudiences(t *testing.T) {
	ok := func(auds string) string {
		return review(`{"authenticated":true,"user":{"username":"u"},"audiences":` + auds + `}`)
	}
	cases := []struct {
		name   string
		want   []string // asked for
		answer string
		auds   []string // nil: not recognised
	}{
		{"none asked, some given", nil, ok(`["a"]`), []string{"a"}},
		{"asked and given", []string{"x", "a"}, ok(`["a","b"]`), []string{"a"}},
		{"asked, others given", []string{"x"}, ok(`["a"]`), nil},
		{"asked, none given, implied matches", []string{"implied"}, ok(`[]`), []string{"implied"}},
		{"asked, none given, implied differs", []string{"x"}, ok(`[]`), nil},
	}
	for _, c := range cases {
		client, _ := answering(t, 201, c.answer)
		ctx := context.Background()
		if c.want != nil {
			ctx = WithAudiences(ctx, c.want)
		}
		resp, recognised, err := client.AuthenticateToken(ctx, "t")
		if err != nil || recognised != (c.auds != nil) || (recognised && !slices.Equal(resp.Audiences, c.auds)) {
			t.Errorf("%s: got %+v %v %v, want audiences %q", c.name, resp, recognised, err, c.auds)
		}
	}
}

func TestWebhookClientAudienceAgnosticWithoutImplied(t *testing.T) {
	c := newRemote(t, newTestTokenFile(t, testTokens))
	resp, ok, err := c.AuthenticateToken(WithAudiences(context.Background(), []string{"api"}), "alice-token")
	if err != nil || !ok || len(resp.Audiences) != 0 {
		t.Errorf("got %+v %v %v, want recognised with no audiences", resp, ok, err)
	}
}

func TestWebhookClientEmptyTokenMakesNoCall(t *testing.T) {
	c, rec := answering(t, 201, review(`{"authenticated":true,"user":{"username":"u"}}`))
	if _, ok, err := c.AuthenticateToken(context.Background(), ""); ok || err != nil || rec.get().method != "" {
		t.Errorf("got %v %v, request %q", ok, err, rec.get().method)
	}
}

func TestNewWebhookClientValidates(t *testing.T) {
	for _, cfg := range []webhook.Config{
		{},
		{URL: "authn:8443/tokenreviews"},
		{URL: "ftp://authn/tokenreviews"},
		{URL: "https://"},
		{URL: "https://authn", Timeout: -time.Second},
	} {
		if _, err := NewWebhookClient(WebhookConfig{Config: cfg}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: error %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
