package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

type userKey struct{}

func TestGetIsDecorated(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.URL.RequestURI() + " as " + r.Header.Get("X-Kubesplit-Identity")))
	})
	decorate := func(out *http.Request) error {
		out.Header.Set("X-Kubesplit-Identity", out.Context().Value(userKey{}).(string))
		return nil
	}
	p, err := New(Config{Upstream: newUpstream(t, b), Decorate: decorate})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), userKey{}, "system:kubesplit:aggregator"), waitLimit)
	defer cancel()
	resp, err := p.Get(ctx, "/apis?x=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := "/apis?x=1 as system:kubesplit:aggregator"; string(body) != want {
		t.Fatalf("backend answered %q, want %q", body, want)
	}
}

func TestGetWithNoEndpoint(t *testing.T) {
	b := newBackend(t, nil)
	b.down.Store(true)
	p, err := New(Config{Upstream: newUpstream(t, b)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(context.Background(), "/apis"); !errors.Is(err, upstream.ErrNoEndpoint) {
		t.Fatalf("Get = %v, want ErrNoEndpoint", err)
	}
}
