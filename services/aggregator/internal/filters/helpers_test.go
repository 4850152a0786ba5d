package filters

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// waitLimit bounds every wait in these tests, so that a bug fails a test
// instead of hanging it; nothing waits on it to synchronise.
const waitLimit = 10 * time.Second

// newServer serves routes through mws on a chi router, on 127.0.0.1:0.
func newServer(t *testing.T, mws []func(http.Handler) http.Handler, routes func(chi.Router)) *httptest.Server {
	t.Helper()
	r := chi.NewRouter()
	r.Use(mws...)
	routes(r)
	srv := httptest.NewServer(r)
	srv.Client().Timeout = waitLimit
	t.Cleanup(srv.Close)
	return srv
}

// do sends a request and returns its response with the body read.
func do(t *testing.T, srv *httptest.Server, method, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(t, srv.Client(), req)
}

func send(t *testing.T, c *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, body
}

// statusOf decodes an error body, failing unless it is a metav1.Status.
func statusOf(t *testing.T, resp *http.Response, body []byte) metav1.Status {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json; body %s", ct, body)
	}
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("body is not a Status: %v: %s", err, body)
	}
	if s.Kind != "Status" || int(s.Code) != resp.StatusCode {
		t.Fatalf("Status kind %q code %d, HTTP code %d", s.Kind, s.Code, resp.StatusCode)
	}
	return s
}

// recv waits for a value on ch, at most waitLimit.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatal("timed out waiting on a channel")
		panic("unreachable")
	}
}

// logSink is a log destination that tests can read while servers write to
// it, and wait on.
type logSink struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func newLogSink() (*logSink, *slog.Logger) {
	s := &logSink{wrote: make(chan struct{}, 64)}
	return s, slog.New(slog.NewTextHandler(s, nil))
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.buf.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *logSink) mustContain(t *testing.T, subs ...string) {
	t.Helper()
	got := s.String()
	for _, sub := range subs {
		if !strings.Contains(got, sub) {
			t.Errorf("log lacks %q:\n%s", sub, got)
		}
	}
}
