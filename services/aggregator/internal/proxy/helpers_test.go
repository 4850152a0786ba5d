package proxy

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// waitLimit bounds every wait in these tests, so that a bug fails a test
// instead of hanging it; nothing waits on it to synchronise.
const waitLimit = 10 * time.Second

// quiet drops the logs of the code under test.
var quiet = slog.New(slog.DiscardHandler)

// backend is a test server that answers /readyz with 200 (unless down)
// and everything else with its handler, recording what it received.
type backend struct {
	srv  *httptest.Server
	down atomic.Bool

	mu       sync.Mutex
	requests []*http.Request
}

func newBackend(t *testing.T, h http.HandlerFunc) *backend {
	t.Helper()
	b := &backend{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == upstream.DefaultHealthPath {
			if b.down.Load() {
				w.WriteHeader(http.StatusInternalServerError)
			}
			return
		}
		b.mu.Lock()
		b.requests = append(b.requests, r.Clone(context.Background()))
		b.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// received returns the requests other than health checks so far.
func (b *backend) received() []*http.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*http.Request(nil), b.requests...)
}

// newUpstream returns an upstream over backends, resolved and checked.
func newUpstream(t *testing.T, backends ...*backend) *upstream.Upstream {
	t.Helper()
	var urls []string
	for _, b := range backends {
		urls = append(urls, b.srv.URL)
	}
	up, err := upstream.New(upstream.Config{Name: "registry", URLs: urls, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := up.Resolve(ctx); err != nil {
		t.Fatal(err)
	}
	return up
}

// newFront serves the proxy (wrapped by mws, outermost first) over TLS
// with HTTP/2, as the aggregator serves clients.
func newFront(t *testing.T, cfg Config, mws ...func(http.Handler) http.Handler) (*httptest.Server, *Proxy) {
	t.Helper()
	if cfg.Log == nil {
		cfg.Log = quiet
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = p
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	srv.Client().Timeout = waitLimit
	t.Cleanup(srv.Close)
	return srv, p
}

// do sends a request to the front and returns its response, body read.
func do(t *testing.T, front *httptest.Server, method, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, front.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := front.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp, body
}

// statusOf decodes an error body, failing unless it is a metav1.Status.
func statusOf(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil || s.Kind != "Status" {
		t.Fatalf("body is not a Status (%v): %s", err, body)
	}
	return s
}
