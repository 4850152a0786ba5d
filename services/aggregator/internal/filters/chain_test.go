package filters

import (
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestChainRunsTheFirstListedFirst(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, s)
	}
	step := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				record(name + " in")
				next.ServeHTTP(w, r)
				record(name + " out")
			})
		}
	}
	mws := []func(http.Handler) http.Handler{step("a"), step("b"), step("c")}
	chain := Chain(mws...)
	mws[0] = step("replaced") // Chain keeps its own copy

	srv := newServer(t, []func(http.Handler) http.Handler{chain}, func(r chi.Router) {
		r.Get("/", func(w http.ResponseWriter, r *http.Request) { record("handler") })
	})
	if resp, _ := do(t, srv, http.MethodGet, "/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}

	want := []string{"a in", "b in", "c in", "handler", "c out", "b out", "a out"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(trace, want) {
		t.Errorf("order %q, want %q", trace, want)
	}
}

func TestChainOfNothingIsTheHandler(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	got := Chain()(h)
	if _, ok := got.(http.HandlerFunc); !ok {
		t.Fatalf("empty chain wrapped the handler: %T", got)
	}
}
