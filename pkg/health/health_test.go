package health

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
