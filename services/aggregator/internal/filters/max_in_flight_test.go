package filters

import (
	"errors"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holdingServer serves pods through a limiter: a request with ?hold
// announces itself on entered and stays in the handler until release is
// closed; any other answers at once.
type holdingServer struct {
	t       *testing.T
	url     string
	client  *http.Client
	entered chan struct{}
	release chan struct{}
}

func newHoldingServer(t *testing.T, l *InFlightLimiter) *holdingServer {
	h := &holdingServer{t: t, entered: make(chan struct{}), release: make(chan struct{})}
	answer := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Has("hold") {
				h.entered <- struct{}{}
				<-h.release
			}
			w.WriteHeader(code)
		}
	}
	srv := newServer(t, []func(http.Handler) http.Handler{WithMaxInFlight(l)}, func(r chi.Router) {
		r.Get("/api/v1/namespaces/{ns}/pods", answer(http.StatusOK))
		r.Post("/api/v1/namespaces/{ns}/pods", answer(http.StatusCreated))
		r.Post("/api/v1/namespaces/{ns}/pods/{name}/exec", answer(http.StatusOK))
	})
	// Registered after the server's own cleanup, so it runs first: Close
	// waits for the held handlers.
	t.Cleanup(h.releaseAll)
	h.url, h.client = srv.URL, srv.Client()
	return h
}

func (h *holdingServer) releaseAll() {
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

// hold starts a request that stays in the handler, waits until it is there,
// and returns where its status code will arrive.
func (h *holdingServer) hold(method, path string) <-chan int {
	codes := make(chan int, 1)
	go func() {
		req, err := http.NewRequest(method, h.url+path+"?hold", nil)
		if err != nil {
			codes <- -1
			return
		}
		resp, err := h.client.Do(req)
		if err != nil {
			codes <- -1
			return
		}
		resp.Body.Close()
		codes <- resp.StatusCode
	}()
	recv(h.t, h.entered)
	return codes
}

func (h *holdingServer) code(method, path string) (int, *http.Response, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	resp, body := send(h.t, h.client, req)
	return resp.StatusCode, resp, body
}

func (h *holdingServer) expect(method, path string, want int) {
	h.t.Helper()
	if got, _, body := h.code(method, path); got != want {
		h.t.Errorf("%s %s: %d, want %d: %s", method, path, got, want, body)
	}
}

func (h *holdingServer) expectRefused(method, path string) {
	h.t.Helper()
	code, resp, body := h.code(method, path)
	if code != http.StatusTooManyRequests {
		h.t.Errorf("%s %s: %d, want 429: %s", method, path, code, body)
		return
	}
	if got := resp.Header.Get("Retry-After"); got != "1" {
		h.t.Errorf("%s %s: Retry-After %q, want 1", method, path, got)
	}
	if s := statusOf(h.t, resp, body); s.Reason != metav1.StatusReasonTooManyRequests {
		h.t.Errorf("%s %s: reason %q, want TooManyRequests", method, path, s.Reason)
	}
}

func expectInflight(t *testing.T, l *InFlightLimiter, readOnly, mutating int) {
	t.Helper()
	if r, m := l.Inflight(); r != readOnly || m != mutating {
		t.Errorf("Inflight() = %d read-only, %d mutating; want %d, %d", r, m, readOnly, mutating)
	}
}

const (
	pods = "/api/v1/namespaces/default/pods"
	exec = "/api/v1/namespaces/default/pods/p/exec"
)

func TestMaxInFlightSeparateBudgets(t *testing.T) {
	l, err := NewInFlightLimiter(MaxInFlightConfig{MaxRequests: 2, MaxMutating: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := newHoldingServer(t, l)

	held := []<-chan int{h.hold(http.MethodGet, pods), h.hold(http.MethodGet, pods)}
	expectInflight(t, l, 2, 0)
	h.expectRefused(http.MethodGet, pods)
	h.expect(http.MethodGet, pods+"?watch=true", http.StatusOK) // long-running: never refused
	h.expect(http.MethodPost, pods, http.StatusCreated)         // its own budget has room

	held = append(held, h.hold(http.MethodPost, pods))
	expectInflight(t, l, 2, 1)
	h.expectRefused(http.MethodPost, pods)
	h.expect(http.MethodPost, exec, http.StatusOK) // long-running: neither counted nor refused
	h.expect(http.MethodGet, pods+"?watch=true", http.StatusOK)
	expectInflight(t, l, 2, 1)

	h.releaseAll()
	for _, codes := range held {
		if code := recv(t, codes); code != http.StatusOK && code != http.StatusCreated {
			t.Errorf("held request ended with %d", code)
		}
	}
	// A place is given back before the response is sent, so it is free now.
	expectInflight(t, l, 0, 0)
	h.expect(http.MethodGet, pods, http.StatusOK)
}

func TestMaxInFlightZeroIsUnbounded(t *testing.T) {
	l, err := NewInFlightLimiter(MaxInFlightConfig{MaxRequests: 0, MaxMutating: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := newHoldingServer(t, l)
	for range 3 {
		h.hold(http.MethodGet, pods)
	}
	expectInflight(t, l, 3, 0) // counted, for metrics, though not bounded
	h.expect(http.MethodGet, pods, http.StatusOK)
}

func TestMaxInFlightNilLimiterPasses(t *testing.T) {
	h := newHoldingServer(t, nil)
	h.expect(http.MethodPost, pods, http.StatusCreated)
}

func TestNewInFlightLimiterRejectsNegative(t *testing.T) {
	for _, cfg := range []MaxInFlightConfig{{MaxRequests: -1}, {MaxMutating: -1}} {
		if _, err := NewInFlightLimiter(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: err %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
