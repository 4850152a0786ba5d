package proxy

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

func TestNewRejectsInvalidConfig(t *testing.T) {
	if _, err := New(Config{}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New without upstream = %v, want ErrInvalidConfig", err)
	}
	up, err := upstream.New(upstream.Config{Name: "x", URLs: []string{"http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Upstream: up, RetryAfter: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New with negative RetryAfter = %v, want ErrInvalidConfig", err)
	}
}

func TestRoundRobinAcrossBackends(t *testing.T) {
	b1, b2, b3 := newBackend(t, nil), newBackend(t, nil), newBackend(t, nil)
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b1, b2, b3)})
	for range 6 {
		if resp, body := do(t, front, http.MethodGet, "/api/v1/namespaces", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
	}
	for i, b := range []*backend{b1, b2, b3} {
		if n := len(b.received()); n != 2 {
			t.Errorf("backend %d got %d requests, want 2", i+1, n)
		}
	}
}

func TestClientIdentityNeverReachesBackend(t *testing.T) {
	b := newBackend(t, nil)
	var decorated bool
	decorate := func(out *http.Request) error {
		decorated = true
		for _, h := range []string{"X-Remote-User", "X-Remote-Extra-Scopes", "Impersonate-User", "Authorization", "X-Kubesplit-Identity"} {
			if v := out.Header.Get(h); v != "" {
				t.Errorf("Decorate saw %s: %q", h, v)
			}
		}
		out.Header.Set("X-Kubesplit-Identity", "signed-by-aggregator")
		return nil
	}
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b), Decorate: decorate})
	forged := http.Header{
		"X-Remote-User":         {"system:admin"},
		"X-Remote-Group":        {"system:masters"},
		"X-Remote-Extra-Scopes": {"all"},
		"Impersonate-User":      {"root"},
		"Impersonate-Group":     {"system:masters"},
		"X-Kubesplit-Identity":  {"forged"},
		"Authorization":         {"Bearer user-token"},
		"Proxy-Authorization":   {"Basic hop-by-hop"},
		"Accept":                {"application/json"},
	}
	if resp, body := do(t, front, http.MethodGet, "/api/v1/pods", forged); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if !decorated {
		t.Fatal("Decorate did not run")
	}
	got := b.received()[0].Header
	for name := range forged {
		if name == "Accept" {
			continue
		}
		if v := got.Values(name); name == "X-Kubesplit-Identity" && !slices.Equal(v, []string{"signed-by-aggregator"}) ||
			name != "X-Kubesplit-Identity" && len(v) > 0 {
			t.Errorf("backend got %s: %q", name, v)
		}
	}
	if got.Get("Accept") != "application/json" || got.Get("X-Forwarded-For") == "" || got.Get("X-Forwarded-Proto") != "https" {
		t.Errorf("backend headers %v lack Accept or X-Forwarded-*", got)
	}
}

func TestDecorateFailureSendsNothing(t *testing.T) {
	b := newBackend(t, nil)
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b), Decorate: func(*http.Request) error { return errors.New("no key") }})
	resp, body := do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	if resp.StatusCode != http.StatusInternalServerError || statusOf(t, body).Reason != metav1.StatusReasonInternalError {
		t.Fatalf("status %d: %s, want 500 InternalError", resp.StatusCode, body)
	}
	if n := len(b.received()); n != 0 {
		t.Fatalf("backend got %d requests, want none", n)
	}
}

func TestBackendResponsePassesThrough(t *testing.T) {
	const body = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("Warning", `299 - "deprecated"`)
		w.Header().Add("Warning", `299 - "unknown field"`)
		w.Header().Set("Audit-Id", "backend-id")
		w.Header().Set("X-Backend", "yes")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(body))
	})
	setAuditID := func(next http.Handler) http.Handler { // as the aggregator's request-id filter does
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Audit-Id", "aggregator-id")
			next.ServeHTTP(w, r)
		})
	}
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b)}, setAuditID)
	resp, got := do(t, front, http.MethodPut, "/api/v1/namespaces/ns/configmaps/c", nil)
	if resp.StatusCode != http.StatusConflict || string(got) != body {
		t.Fatalf("got %d %s, want 409 %s", resp.StatusCode, got, body)
	}
	if w := resp.Header.Values("Warning"); len(w) != 2 {
		t.Errorf("Warning headers %q, want both", w)
	}
	if id := resp.Header.Values("Audit-Id"); !slices.Equal(id, []string{"backend-id"}) {
		t.Errorf("Audit-Id %q, want the backend's alone", id)
	}
	if resp.Header.Get("X-Backend") != "yes" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v not passed through", resp.Header)
	}
	if id := b.received()[0].Header.Get("Audit-Id"); id != "aggregator-id" {
		t.Errorf("backend got Audit-Id %q, want the aggregator's", id)
	}
}
