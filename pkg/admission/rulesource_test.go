package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// rulesServer serves whatever handler it currently holds on RulesPath and
// counts the GETs.
type rulesServer struct {
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler]
	gets    atomic.Int32
}

func newRulesServer(t *testing.T, h http.Handler) *rulesServer {
	t.Helper()
	s := &rulesServer{}
	s.serve(h)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != RulesPath {
			http.NotFound(w, r)
			return
		}
		s.gets.Add(1)
		(*s.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *rulesServer) serve(h http.Handler) { s.handler.Store(&h) }

func (s *rulesServer) source(t *testing.T, maxAge time.Duration) *RuleSource {
	t.Helper()
	src, err := NewRuleSource(RuleSourceConfig{URL: s.srv.URL + RulesPath, HTTPClient: s.srv.Client(), MaxAge: maxAge, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

var podRules = Rules{
	Mutating:   []Rule{rule(ops(opCreate), strs(""), strs("v1"), strs("pods"), "")},
	Validating: []Rule{rule(ops(opCreate, opUpdate), strs(""), strs("v1"), strs("pods"), "")},
}

// The rules are fetched once and kept for MaxAge, whatever the number of
// writers asking at once.
func TestRuleSourceCaches(t *testing.T) {
	s := newRulesServer(t, NewRulesHandler(podRules))
	src := s.source(t, time.Hour)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			r, ok := src.Rules(context.Background())
			if !ok || len(r.Mutating) != 1 || len(r.Validating) != 1 || len(r.Validating[0].Operations) != 2 {
				t.Errorf("rules %v, %v", r, ok)
			}
		})
	}
	wg.Wait()
	if n := s.gets.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

// Rules older than MaxAge are fetched again, so that a restarted service's
// new rules are used.
func TestRuleSourceRefreshes(t *testing.T) {
	s := newRulesServer(t, NewRulesHandler(podRules))
	src := s.source(t, 20*time.Millisecond)
	if r, ok := src.Rules(context.Background()); !ok || len(r.Mutating) != 1 {
		t.Fatalf("first rules %v, %v", r, ok)
	}
	s.serve(NewRulesHandler(Rules{}))
	pollUntil(t, func() bool {
		r, ok := src.Rules(context.Background())
		return ok && len(r.Mutating) == 0
	})
}

// Rules past half of MaxAge are answered at once and fetched again in the
// background: no write waits for that fetch, and the next ones see its
// answer.
func TestRuleSourceRefreshesAhead(t *testing.T) {
	s := newRulesServer(t, NewRulesHandler(podRules))
	src := s.source(t, time.Hour)
	if r, ok := src.Rules(context.Background()); !ok || len(r.Mutating) != 1 {
		t.Fatalf("first rules %v, %v", r, ok)
	}
	release := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock)
	s.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		NewRulesHandler(Rules{}).ServeHTTP(w, r)
	}))
	src.mu.Lock()
	src.fetched = time.Now().Add(-40 * time.Minute)
	src.mu.Unlock()

	got := make(chan []Rule, 1)
	go func() {
		r, _ := src.Rules(context.Background())
		got <- r.Mutating
	}()
	select {
	case m := <-got:
		if len(m) != 1 {
			t.Fatalf("rules while refreshing %v, want the known ones", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write waited for the background fetch")
	}
	unblock()
	pollUntil(t, func() bool {
		r, ok := src.Rules(context.Background())
		return ok && len(r.Mutating) == 0
	})
	if n := s.gets.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

// Anything but a well-formed Rules answer leaves the rules unknown (so
// every request is asked about); the next fetch, after MaxAge, recovers.
func TestRuleSourceFailures(t *testing.T) {
	redirect := httptest.NewServer(NewRulesHandler(Rules{}))
	t.Cleanup(redirect.Close)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{
		{"server error", answering(http.StatusInternalServerError, `{}`)},
		{"forbidden", answering(http.StatusForbidden, `{"kind":"Status"}`)},
		{"created", answering(http.StatusCreated, `{"mutating":[],"validating":[]}`)},
		{"not JSON", answering(http.StatusOK, `<html>`)},
		{"empty object", answering(http.StatusOK, `{}`)},
		{"null", answering(http.StatusOK, `null`)},
		{"one list", answering(http.StatusOK, `{"mutating":[]}`)},
		{"conflicting types", answering(http.StatusOK, `{"mutating":{},"validating":"x"}`)},
		{"oversized", answering(http.StatusOK, `{"mutating":[],"validating":[]`+strings.Repeat(" ", maxRulesBytes)+`}`)},
		{"redirect", http.RedirectHandler(redirect.URL+RulesPath, http.StatusFound)},
		{"too slow", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRulesServer(t, tc.h)
			src := s.source(t, 20*time.Millisecond)
			if r, ok := src.Rules(context.Background()); ok {
				t.Fatalf("rules %v from a bad answer", r)
			}
			s.serve(NewRulesHandler(Rules{}))
			pollUntil(t, func() bool { _, ok := src.Rules(context.Background()); return ok })
		})
	}
}

func TestRuleSourceUnreachable(t *testing.T) {
	s := newRulesServer(t, NewRulesHandler(podRules))
	s.srv.Close()
	if r, ok := s.source(t, time.Hour).Rules(context.Background()); ok {
		t.Errorf("rules %v from a closed server", r)
	}
}

// A writer whose request was cancelled does not leave the rules unknown.
func TestRuleSourceIgnoresCallerCancel(t *testing.T) {
	s := newRulesServer(t, NewRulesHandler(podRules))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := s.source(t, time.Hour).Rules(ctx); !ok {
		t.Error("rules unknown after a cancelled caller's fetch")
	}
}

func TestRuleSourceConfig(t *testing.T) {
	for _, u := range []string{"", "ftp://x/rules", "/admission/v1/rules", "http://"} {
		if _, err := NewRuleSource(RuleSourceConfig{URL: u}); err == nil {
			t.Errorf("NewRuleSource(%q) accepted", u)
		}
	}
}

func TestRulesHandler(t *testing.T) {
	srv := httptest.NewServer(NewRulesHandler(Rules{Validating: podRules.Validating}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d, %v", resp.StatusCode, err)
	}
	// An empty phase is [], not null or absent: a RuleSource refuses those.
	if string(raw["mutating"]) != "[]" || !strings.Contains(string(raw["validating"]), `"pods"`) {
		t.Errorf("served %s", raw)
	}
	resp, err = http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

// pollUntil waits up to 10 s for cond.
func pollUntil(t *testing.T, cond func() bool) {
	t.Helper()
	polltest.Until(t, 10*time.Second, "the condition", cond)
}
