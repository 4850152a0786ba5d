package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestProbe: 2xx is healthy, anything else or no answer is not, and a
// service's own self-signed HTTPS endpoint can be probed.
func TestProbe(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusOK)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(status.Load()))
	})
	plain, secure := httptest.NewServer(h), httptest.NewTLSServer(h)
	defer plain.Close()
	defer secure.Close()
	for _, url := range []string{plain.URL, secure.URL} {
		if err := Probe(context.Background(), url+"/readyz"); err != nil {
			t.Errorf("probing a ready %s: %v", url, err)
		}
		if err := Probe(context.Background(), url+"/nothing"); err == nil {
			t.Errorf("probing %s/nothing (404) succeeded", url)
		}
	}
	status.Store(http.StatusServiceUnavailable)
	if err := Probe(context.Background(), plain.URL+"/readyz"); err == nil {
		t.Error("probing an endpoint answering 503 succeeded")
	}
	plain.Close()
	if err := Probe(context.Background(), plain.URL+"/readyz"); err == nil {
		t.Error("probing a closed server succeeded")
	}
}
