package health

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	bad := Check{Name: "etcd", Func: func(context.Context) error { return errors.New("unreachable") }}
	h := Handler("/readyz", Ping, bad)
	cases := []struct {
		path string
		code int
		body string
	}{
		{"/readyz", 500, "[-]etcd failed: unreachable"},
		{"/readyz?verbose", 500, "[+]ping ok"},
		{"/readyz?exclude=etcd", 200, "ok"},
		{"/readyz?exclude=etcd&verbose", 200, "readyz check passed"},
		{"/readyz/ping", 200, "ok"},
		{"/readyz/etcd", 500, "unreachable"},
		{"/readyz/nope", 404, "no check named"},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.body) {
			t.Errorf("%s = %d %q, want %d containing %q", c.path, rec.Code, rec.Body.String(), c.code, c.body)
		}
	}
}

// Probes answers the three endpoints from their checks (readiness
// includes liveness) and passes everything else on.
func TestProbes(t *testing.T) {
	etcdDown := Check{Name: "etcd", Func: func(context.Context) error { return errors.New("unreachable") }}
	notSynced := Check{Name: "synced", Func: func(context.Context) error { return errors.New("not yet") }}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	cases := []struct {
		live, ready []Check
		path        string
		code        int
	}{
		{nil, []Check{notSynced}, "/livez", 200},
		{nil, []Check{notSynced}, "/healthz", 200},
		{nil, []Check{notSynced}, "/readyz", 500},
		{nil, []Check{notSynced}, "/readyz?exclude=synced", 200},
		{nil, []Check{notSynced}, "/readyz/ping", 200},
		{[]Check{etcdDown}, nil, "/livez", 500},
		{[]Check{etcdDown}, nil, "/readyz", 500},
		{[]Check{etcdDown}, nil, "/livez/etcd", 500},
		{nil, nil, "/readyz", 200},
		{nil, nil, "/readyzz", http.StatusTeapot},
		{nil, nil, "/api/v1/pods", http.StatusTeapot},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		Probes(c.live, c.ready)(next).ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != c.code {
			t.Errorf("live %d ready %d checks, %s = %d, want %d", len(c.live), len(c.ready), c.path, rec.Code, c.code)
		}
	}
}

// Checks run concurrently, in a bounded time: a slow check costs the
// answer its own time, not the sum, and one that never returns is
// reported failed at the bound instead of holding the answer.
func TestHandlerRunsChecksConcurrentlyAndBounded(t *testing.T) {
	slow := func(name string) Check {
		return Check{Name: name, Func: func(ctx context.Context) error {
			select {
			case <-time.After(300 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}
	}
	h := Handler("/readyz", slow("a"), slow("b"), slow("c"), slow("d"))
	start := time.Now()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz?verbose", nil))
	if took := time.Since(start); rec.Code != 200 || took > 900*time.Millisecond {
		t.Errorf("four 300ms checks = %d after %v, want 200 in about 300ms", rec.Code, took)
	}
	if want := "[+]a ok\n[+]b ok\n[+]c ok\n[+]d ok\n"; !strings.HasPrefix(rec.Body.String(), want) {
		t.Errorf("lines out of order:\n%s", rec.Body.String())
	}

	stuck := Check{Name: "stuck", Func: func(context.Context) error { select {} }}
	start = time.Now()
	rec = httptest.NewRecorder()
	Handler("/livez", Ping, stuck).ServeHTTP(rec, httptest.NewRequest("GET", "/livez?verbose", nil))
	if took := time.Since(start); rec.Code != 500 || took > DefaultTimeout+time.Second ||
		!strings.Contains(rec.Body.String(), "[-]stuck failed: no answer within") || !strings.Contains(rec.Body.String(), "[+]ping ok") {
		t.Errorf("a check that never returns = %d after %v:\n%s", rec.Code, took, rec.Body.String())
	}

	panics := Check{Name: "broken", Func: func(context.Context) error { panic("oops") }}
	rec = httptest.NewRecorder()
	Handler("/livez", panics).ServeHTTP(rec, httptest.NewRequest("GET", "/livez", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "[-]broken failed: check panicked: oops") {
		t.Errorf("a panicking check = %d %s", rec.Code, rec.Body.String())
	}
}

// A hook is served under one name on all three endpoints: /readyz says how
// it stands now, /livez and /healthz that it has passed once.
func TestHookOnProbes(t *testing.T) {
	var state atomic.Pointer[error]
	set := func(err error) { state.Store(&err) }
	set(errors.New("not written yet"))
	hook := NewHook("poststarthook/bootstrap", func(context.Context) error { return *state.Load() })
	other := Check{Name: "informer-sync", Func: func(context.Context) error { return nil }}
	probes := Probes([]Check{hook.Live()}, []Check{other, hook.Ready()})(http.NotFoundHandler())
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		probes.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	for _, p := range []string{"/livez", "/healthz", "/readyz"} {
		if code, body := get(p + "?verbose"); code != 500 || !strings.Contains(body, "[-]poststarthook/bootstrap failed: not written yet") {
			t.Errorf("before: %s = %d %s", p, code, body)
		}
	}
	set(nil)
	if code, body := get("/readyz?verbose"); code != 200 ||
		body != "[+]ping ok\n[+]poststarthook/bootstrap ok\n[+]informer-sync ok\nreadyz check passed\n" {
		t.Errorf("after: /readyz = %d %q, want the hook once, in its live place", code, body)
	}
	set(errors.New("etcd down"))
	if code, body := get("/readyz/poststarthook/bootstrap"); code != 500 || !strings.Contains(body, "etcd down") {
		t.Errorf("lost: /readyz/poststarthook/bootstrap = %d %s", code, body)
	}
	for _, p := range []string{"/livez", "/healthz", "/livez/poststarthook/bootstrap"} {
		if code, _ := get(p); code != 200 {
			t.Errorf("lost: %s = %d, want 200: a hook that passed stays passed for liveness", p, code)
		}
	}
}

func TestParseVerbose(t *testing.T) {
	body := "[+]ping ok\n[-]etcd failed: dial tcp: connection refused\n[+]poststarthook/a/b ok\n[-]withheld failed\nreadyz check failed\n"
	got, err := ParseVerbose(strings.NewReader(body), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ping": "", "etcd": "dial tcp: connection refused", "poststarthook/a/b": "", "withheld": "failed"}
	if len(got) != len(want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
	for name, reason := range want {
		err, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s missing", name)
		case reason == "" && err != nil, reason != "" && (err == nil || err.Error() != reason):
			t.Errorf("%s = %v, want %q", name, err, reason)
		}
	}
	// What the handler writes reads back.
	rec := httptest.NewRecorder()
	Handler("/readyz", Ping, Check{Name: "x", Func: func(context.Context) error { return errors.New("why") }}).
		ServeHTTP(rec, httptest.NewRequest("GET", "/readyz?verbose", nil))
	back, _ := ParseVerbose(rec.Body, 1<<10)
	if back["ping"] != nil || back["x"] == nil || back["x"].Error() != "why" {
		t.Errorf("round trip = %v", back)
	}
}

// The log check fails while a write is blocked past the limit or the
// last one failed, and recovers with the next good write.
func TestLogCheck(t *testing.T) {
	c := NewLogCheck(time.Minute)
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	w := &gateWriter{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	log := slog.New(c.Wrap(slog.NewTextHandler(w, nil))).With("k", "v")
	check := c.Check().Func
	if err := check(t.Context()); err != nil {
		t.Fatalf("before any write: %v", err)
	}
	done := make(chan struct{})
	go func() { log.Info("blocked"); close(done) }()
	<-w.entered
	now = now.Add(30 * time.Second)
	if err := check(t.Context()); err != nil {
		t.Errorf("a write blocked 30s of 1m: %v", err)
	}
	now = now.Add(time.Minute)
	if err := check(t.Context()); err == nil || !strings.Contains(err.Error(), "blocked for 1m30s") {
		t.Errorf("a write blocked 1m30s: %v", err)
	}
	close(w.release)
	<-done
	if err := check(t.Context()); err != nil {
		t.Errorf("after the write went through: %v", err)
	}
	w.fail.Store(true)
	log.Info("fails")
	if err := check(t.Context()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("after a failed write: %v", err)
	}
	w.fail.Store(false)
	log.WithGroup("g").Info("works")
	if err := check(t.Context()); err != nil {
		t.Errorf("after a good write: %v", err)
	}
}

// gateWriter blocks writes until release is closed, and fails them while
// fail is set.
type gateWriter struct {
	release chan struct{}
	entered chan struct{}
	fail    atomic.Bool
}

func (g *gateWriter) Write(p []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.release
	if g.fail.Load() {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
