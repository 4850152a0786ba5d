package proxy

import (
	"context"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// assertUnavailable checks for 503 ServiceUnavailable with Retry-After.
func assertUnavailable(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusServiceUnavailable || statusOf(t, body).Reason != metav1.StatusReasonServiceUnavailable {
		t.Fatalf("status %d: %s, want 503 ServiceUnavailable", resp.StatusCode, body)
	}
	if resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q, want 1", resp.Header.Get("Retry-After"))
	}
}

// assertTimeout checks for 504 Timeout without Retry-After.
func assertTimeout(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusGatewayTimeout || statusOf(t, body).Reason != metav1.StatusReasonTimeout {
		t.Fatalf("status %d: %s, want 504 Timeout", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		t.Fatalf("Retry-After %q on a request whose outcome is unknown", ra)
	}
}

func TestNoHealthyEndpointForwardsNothing(t *testing.T) {
	b := newBackend(t, nil)
	b.down.Store(true)
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b)})
	resp, body := do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	assertUnavailable(t, resp, body)
	if n := len(b.received()); n != 0 {
		t.Fatalf("backend got %d requests, want none", n)
	}
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	b := newBackend(t, nil)
	up := newUpstream(t, b) // healthy when checked
	front, _ := newFront(t, Config{Upstream: up})
	b.srv.Close()
	up.Transport().(interface{ CloseIdleConnections() }).CloseIdleConnections()

	resp, body := do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	assertUnavailable(t, resp, body)
	if eps := up.Endpoints(); eps[0].Healthy {
		t.Fatalf("endpoint still healthy after a refused connection: %+v", eps)
	}
	resp, body = do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	assertUnavailable(t, resp, body) // now from Pick: nothing left to try
}

// withDeadline stands for the aggregator's request-deadline filter.
func withDeadline(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

func TestBackendThatHangsTimesOut(t *testing.T) {
	b := newBackend(t, func(_ http.ResponseWriter, r *http.Request) {
		select { // until the proxy gives up and drops the connection
		case <-r.Context().Done():
		case <-time.After(waitLimit):
		}
	})
	up := newUpstream(t, b)
	front, _ := newFront(t, Config{Upstream: up}, withDeadline(100*time.Millisecond))
	resp, body := do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	assertTimeout(t, resp, body)
	if n := len(b.received()); n != 1 {
		t.Fatalf("backend got %d requests, want 1", n)
	}
	if eps := up.Endpoints(); !eps[0].Healthy {
		t.Fatalf("a slow backend was taken out: %+v", eps)
	}
}

func TestBackendThatDropsTheConnectionTimesOut(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_ = conn.Close()
	})
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b)})
	resp, body := do(t, front, http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	assertTimeout(t, resp, body)
}
