package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answer is the JSON the tests exchange.
type answer struct {
	Allowed bool `json:"allowed"`
}

// newServer runs h on 127.0.0.1:0 for the test.
func newServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// answering writes code and body, whatever it is asked.
func answering(code int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Revision", "7")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	})
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	return newClientLimited(t, cfg, 0)
}

func newClientLimited(t *testing.T, cfg Config, maxResponseBytes int64) *Client {
	t.Helper()
	c, err := NewClient(cfg, maxResponseBytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPostDecodesAnswer(t *testing.T) {
	var got answer
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || string(body) != `{"allowed":false}` {
			t.Errorf("got %s %q %s", r.Method, r.Header.Get("Content-Type"), body)
		}
		answering(201, `{"allowed":true}`).ServeHTTP(w, r)
	}))
	header, err := newClient(t, Config{URL: srv.URL}).Post(context.Background(), answer{}, &got)
	if err != nil || !got.Allowed || header.Get("X-Revision") != "7" {
		t.Fatalf("got %+v, header %v, err %v", got, header, err)
	}
}

// TestPostFailsClosed: every answer that cannot be trusted is an error and
// leaves the output undecided.
func TestPostFailsClosed(t *testing.T) {
	allowed := `{"allowed":true}`
	cases := []struct {
		name string
		h    http.Handler
		want error
	}{
		{"redirect", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				answering(200, allowed).ServeHTTP(w, r)
				return
			}
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}), ErrUnavailable},
		{"500", answering(500, allowed), ErrUnavailable},
		{"304", answering(304, ""), ErrUnavailable},
		{"oversized", answering(200, allowed+strings.Repeat(" ", 64)), ErrMalformedAnswer},
		{"not JSON", answering(200, "{"), ErrMalformedAnswer},
		{"wrong shape", answering(200, `{"allowed":"yes"}`), ErrMalformedAnswer},
		{"two documents", answering(200, allowed+allowed), ErrMalformedAnswer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, c.h)
			var got answer
			_, err := newClientLimited(t, Config{URL: srv.URL}, 32).Post(context.Background(), answer{}, &got)
			if !errors.Is(err, c.want) || got.Allowed {
				t.Fatalf("got %+v, err %v; want %v", got, err, c.want)
			}
		})
	}
}

// TestPostFollowsNoRedirectWithOwnClient: a caller's client that would
// follow redirects is not allowed to here.
func TestPostFollowsNoRedirectWithOwnClient(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	_, err := newClient(t, Config{URL: srv.URL, HTTPClient: &http.Client{}}).Post(context.Background(), answer{}, &answer{})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
}

func TestPostErrorCarriesStatusMessage(t *testing.T) {
	srv := newServer(t, answering(503, `{"kind":"Status","apiVersion":"v1","message":"policy loading"}`))
	_, err := newClient(t, Config{URL: srv.URL}).Post(context.Background(), answer{}, &answer{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "policy loading") {
		t.Fatalf("err %v", err)
	}
}

func TestPostTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer close(release)
	_, err := newClient(t, Config{URL: srv.URL, Timeout: 20 * time.Millisecond}).Post(context.Background(), answer{}, &answer{})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want ErrUnavailable wrapping DeadlineExceeded", err)
	}
}

func TestPostUnreachable(t *testing.T) {
	srv := httptest.NewServer(answering(200, "{}"))
	srv.Close()
	_, err := newClient(t, Config{URL: srv.URL}).Post(context.Background(), answer{}, &answer{})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
}

func TestNewClientRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{URL: "127.0.0.1:8443/review"},
		{URL: "ftp://host/review"},
		{URL: "https:///review"},
		{URL: "https://host/review", Timeout: -time.Second},
	} {
		if _, err := NewClient(cfg, 0); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: err %v, want ErrInvalidConfig", cfg, err)
		}
	}
	if _, err := NewClient(Config{URL: "https://host/review"}, -1); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("negative response limit: err %v, want ErrInvalidConfig", err)
	}
}

func TestRelabel(t *testing.T) {
	stageUnavailable, stageMalformed := errors.New("stage unavailable"), errors.New("stage malformed")
	other := errors.New("other")
	cases := []struct {
		in, want error
	}{
		{ErrUnavailable, stageUnavailable},
		{ErrMalformedAnswer, stageMalformed},
		{other, other},
	}
	for _, c := range cases {
		got := Relabel(c.in, stageUnavailable, stageMalformed)
		if !errors.Is(got, c.want) || !errors.Is(got, c.in) {
			t.Errorf("Relabel(%v) = %v, want it to match %v and %v", c.in, got, c.want, c.in)
		}
	}
	if Relabel(nil, stageUnavailable, stageMalformed) != nil {
		t.Error("Relabel(nil) is not nil")
	}
}
