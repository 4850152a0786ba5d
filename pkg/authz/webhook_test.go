package authz

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answering serves a fixed HTTP answer.
func answering(code int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// redirecting sends the review elsewhere, where a GET is allowed: a client
// following the redirect would turn the POST into that GET and allow.
func redirecting() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(SubjectAccessReviewPath, answering(302, map[string]string{"Location": "/elsewhere"}, ""))
	mux.Handle("/elsewhere", answering(200, nil, allowedReview))
	return mux
}

func newClient(t *testing.T, h http.Handler) *WebhookClient {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewWebhookClient(WebhookConfig{URL: srv.URL + SubjectAccessReviewPath, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const allowedReview = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}`

// TestWebhookBadAnswersNeverAllow: every answer the client cannot trust
// is an error, and none is an allow.
func TestWebhookBadAnswersNeverAllow(t *testing.T) {
	cases := []struct {
		name string
		h    http.Handler
		want error
	}{
		{"500", answering(500, nil, allowedReview), ErrUnavailable},
		{"403", answering(403, nil, allowedReview), ErrUnavailable},
		{"redirect", redirecting(), ErrUnavailable},
		{"not JSON", answering(201, nil, "<html>allowed</html>"), ErrMalformedReview},
		{"empty", answering(201, nil, ""), ErrMalformedReview},
		{"no type", answering(201, nil, `{"status":{"allowed":true}}`), ErrMalformedReview},
		{"another kind", answering(201, nil, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{"allowed":true}}`), ErrMalformedReview},
		{"allowed and denied", answering(201, nil, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"denied":true}}`), ErrMalformedReview},
		{"bad revision", answering(201, map[string]string{RevisionHeader: "soon"}, allowedReview), ErrMalformedReview},
		{"negative revision", answering(201, map[string]string{RevisionHeader: "-1"}, allowedReview), ErrMalformedReview},
		{"too large", answering(201, nil, allowedReview+strings.Repeat(" ", maxAnswerBytes)), ErrMalformedReview},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := newClient(t, c.h).Authorize(context.Background(), Attributes{Verb: "get", Path: "/"})
			if !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
			if res.Decision == DecisionAllow {
				t.Error("an untrusted answer allowed")
			}
		})
	}
}

func TestWebhookAcceptsAny2xx(t *testing.T) {
	// kube's client takes any 2xx; a webhook answering 200 is common.
	h := answering(200, map[string]string{RevisionHeader: "9"}, allowedReview)
	res, err := newClient(t, h).Authorize(context.Background(), Attributes{Verb: "get", Path: "/"})
	if err != nil || res != (Result{Decision: DecisionAllow, Revision: 9}) {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestWebhookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })

	c, err := NewWebhookClient(WebhookConfig{URL: srv.URL, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Authorize(context.Background(), Attributes{Verb: "get", Path: "/"})
	if !errors.Is(err, ErrUnavailable) || res.Decision == DecisionAllow {
		t.Fatalf("got %+v, %v; want ErrUnavailable", res, err)
	}
}

func TestNewWebhookClientValidates(t *testing.T) {
	for _, cfg := range []WebhookConfig{
		{},
		{URL: "authz:8443/path"},
		{URL: "ftp://authz/"},
		{URL: "https://"},
		{URL: "https://authz", Timeout: -time.Second},
	} {
		if _, err := NewWebhookClient(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: error %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
