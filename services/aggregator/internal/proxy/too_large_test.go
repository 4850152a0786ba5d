package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withBodyLimit stands for the aggregator's request-body limit filter on
// a body of unknown length.
func withBodyLimit(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}

// A streamed body cut at the aggregator's limit is 413, not a 504 whose
// outcome is unknown: the backend got it cut short and did nothing.
func TestBodyPastTheLimitIsTooLarge(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err == nil {
			w.WriteHeader(http.StatusCreated) // the whole body came: wrong
		}
	})
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b)}, withBodyLimit(1000))
	req, err := http.NewRequest(http.MethodPost, front.URL+"/api/v1/namespaces/ns/configmaps",
		io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20))))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || statusOf(t, body).Reason != metav1.StatusReasonRequestEntityTooLarge {
		t.Fatalf("status %d: %s, want 413 RequestEntityTooLarge", resp.StatusCode, body)
	}
}
