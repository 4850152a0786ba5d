package upstream

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHealthCheckSendsHealthHeader: a backend that wants to know who
// checks it (an APIService's, on its discovery path) gets HealthHeader,
// and is healthy only because of it.
func TestHealthCheckSendsHealthHeader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/wardle.example.com/v1alpha1" || r.Header.Get("X-Remote-User") != "checker" {
			http.Error(w, "who are you", http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		header  http.Header
		healthy bool
	}{
		{http.Header{"X-Remote-User": {"checker"}}, true},
		{nil, false},
	} {
		u := newUpstream(t, Config{URLs: []string{srv.URL}, HealthPath: "/apis/wardle.example.com/v1alpha1", HealthHeader: tc.header})
		_ = u.Resolve(ctx(t))
		if eps := u.Endpoints(); len(eps) != 1 || eps[0].Healthy != tc.healthy {
			t.Errorf("with header %v: endpoints %+v, want healthy=%v", tc.header, eps, tc.healthy)
		}
	}
}
