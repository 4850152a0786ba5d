package health

import (
	"context"
	"errors"
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
