package apierror

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestUnavailableAsksForARetry: every 503 a stage writes carries
// Retry-After in whole seconds, at least one, so clients retry it.
func TestUnavailableAsksForARetry(t *testing.T) {
	for _, c := range []struct {
		after time.Duration
		want  string
	}{{0, "1"}, {-time.Second, "1"}, {time.Millisecond, "1"}, {time.Second, "1"}, {1500 * time.Millisecond, "2"}, {5 * time.Second, "5"}} {
		rec := httptest.NewRecorder()
		Write(rec, Unavailable("down", c.after))
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != c.want {
			t.Errorf("Unavailable(%v): %d, Retry-After %q; want 503, %s", c.after, rec.Code, rec.Header().Get("Retry-After"), c.want)
		}
	}
}
