package filters

import (
	"bufio"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/recovery"
)

func mustDeadline(t *testing.T, timeout time.Duration) func(http.Handler) http.Handler {
	t.Helper()
	mw, err := WithRequestDeadline(timeout)
	if err != nil {
		t.Fatal(err)
	}
	return mw
}

// TestRequestDeadlineAnswersForASlowHandler uses a handler that ignores its
// context: the 504 must come while it is still busy, and its late write must
// go nowhere.
func TestRequestDeadlineAnswersForASlowHandler(t *testing.T) {
	release := make(chan struct{})
	lateWrite := make(chan error, 1)
	srv := newServer(t, []func(http.Handler) http.Handler{WithRequestID(), mustDeadline(t, 50*time.Millisecond)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			<-release
			_, err := io.WriteString(w, "too late")
			lateWrite <- err
		})
	})
	defer close(release)

	resp, body := do(t, srv, http.MethodGet, "/api/v1/pods")
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504: %s", resp.StatusCode, body)
	}
	s := statusOf(t, resp, body)
	if s.Reason != metav1.StatusReasonTimeout || !strings.Contains(s.Message, "request did not complete within the allotted timeout") {
		t.Errorf("Status %q %q, want kube's Timeout", s.Reason, s.Message)
	}
	// The request may have reached storage: the client must not replay it.
	if got := resp.Header.Get("Retry-After"); got != "" {
		t.Errorf("Retry-After %q on a timeout", got)
	}
	if resp.Header.Get(HeaderAuditID) == "" {
		t.Error("the 504 lost the outer filters' headers")
	}

	release <- struct{}{}
	if err := recv(t, lateWrite); !errors.Is(err, http.ErrHandlerTimeout) {
		t.Errorf("late write: %v, want http.ErrHandlerTimeout", err)
	}
}

func TestRequestDeadlineKeepsATimelyAnswer(t *testing.T) {
	srv := newServer(t, []func(http.Handler) http.Handler{mustDeadline(t, time.Minute)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			if _, ok := r.Context().Deadline(); !ok {
				http.Error(w, "no deadline", http.StatusInternalServerError)
				return
			}
			w.Header().Set("X-Handler", "yes")
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, "done")
		})
	})
	resp, body := do(t, srv, http.MethodGet, "/api/v1/pods")
	if resp.StatusCode != http.StatusAccepted || string(body) != "done" || resp.Header.Get("X-Handler") != "yes" {
		t.Errorf("got %d %q X-Handler=%q", resp.StatusCode, body, resp.Header.Get("X-Handler"))
	}
}

// TestRequestDeadlineSparesAWatch holds a watch open while a list started
// after it times out, so the watch has outlived its would-be deadline.
func TestRequestDeadlineSparesAWatch(t *testing.T) {
	resume := make(chan struct{})
	hadDeadline := make(chan bool, 1)
	srv := newServer(t, []func(http.Handler) http.Handler{mustDeadline(t, 20*time.Millisecond)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("watch") != "true" {
				<-r.Context().Done() // a list that honours its deadline
				return
			}
			_, ok := r.Context().Deadline()
			hadDeadline <- ok
			_, _ = io.WriteString(w, "event 1\n")
			http.NewResponseController(w).Flush()
			<-resume
			_, _ = io.WriteString(w, "event 2\n")
		})
	})

	resp, err := srv.Client().Get(srv.URL + "/api/v1/pods?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if recv(t, hadDeadline) {
		t.Error("the watch's context has a deadline")
	}
	events := bufio.NewReader(resp.Body)
	if line, err := events.ReadString('\n'); err != nil || line != "event 1\n" {
		t.Fatalf("first event %q, %v", line, err)
	}

	if list, body := do(t, srv, http.MethodGet, "/api/v1/pods"); list.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("list: %d, want 504: %s", list.StatusCode, body)
	}

	close(resume)
	rest, err := io.ReadAll(events)
	if err != nil || string(rest) != "event 2\n" {
		t.Errorf("rest of the watch %q, %v: it was cut", rest, err)
	}
}

func TestRequestDeadlineTimeoutParameter(t *testing.T) {
	remaining := make(chan time.Duration, 1)
	srv := newServer(t, []func(http.Handler) http.Handler{mustDeadline(t, time.Minute)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			deadline, _ := r.Context().Deadline()
			remaining <- time.Until(deadline)
			if r.URL.Query().Has("block") {
				<-r.Context().Done()
			}
		})
	})

	// Shorter than the server's: it applies.
	if resp, body := do(t, srv, http.MethodGet, "/api/v1/pods?block&timeout=50ms"); resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("?timeout=50ms: %d, want 504: %s", resp.StatusCode, body)
	}
	if d := recv(t, remaining); d > 50*time.Millisecond {
		t.Errorf("?timeout=50ms left %v", d)
	}

	// Longer than the server's, or not positive: the server's applies.
	for _, v := range []string{"5m", "0s", "-1s", "2562047h47m16.854775807s"} {
		if resp, body := do(t, srv, http.MethodGet, "/api/v1/pods?timeout="+v); resp.StatusCode != http.StatusOK {
			t.Errorf("?timeout=%s: %d: %s", v, resp.StatusCode, body)
		}
		if d := recv(t, remaining); d > time.Minute || d < time.Minute-waitLimit {
			t.Errorf("?timeout=%s left %v, want the server's minute", v, d)
		}
	}

	resp, body := do(t, srv, http.MethodGet, "/api/v1/pods?timeout=soon")
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("?timeout=soon: %d, want 400: %s", resp.StatusCode, body)
	}
	if s := statusOf(t, resp, body); !strings.Contains(s.Message, "invalid timeout specified in the request URL") {
		t.Errorf("message %q", s.Message)
	}
}

// TestRequestDeadlineAbortsAStartedResponse: past the deadline, a response
// already under way cannot become a 504, and must not end as if whole.
func TestRequestDeadlineAbortsAStartedResponse(t *testing.T) {
	sink, logger := newLogSink()
	srv := newServer(t, []func(http.Handler) http.Handler{recovery.Middleware(logger), mustDeadline(t, 50*time.Millisecond)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "partial")
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		})
	})
	resp, err := srv.Client().Get(srv.URL + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, err := io.ReadAll(resp.Body); err == nil {
		t.Fatalf("read a complete body %q from a response cut by its deadline", body)
	}
	if got := sink.String(); got != "" {
		t.Errorf("an abort was logged as a panic: %s", got)
	}
}

// TestRequestDeadlineCarriesPanics: a panic in the handler's goroutine
// reaches recovery.Middleware, with the stack where it happened.
func TestRequestDeadlineCarriesPanics(t *testing.T) {
	sink, logger := newLogSink()
	srv := newServer(t, []func(http.Handler) http.Handler{recovery.Middleware(logger), mustDeadline(t, time.Minute)}, func(r chi.Router) {
		r.Get("/api/v1/pods", panicInHandler)
	})
	resp, body := do(t, srv, http.MethodGet, "/api/v1/pods")
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500: %s", resp.StatusCode, body)
	}
	sink.mustContain(t, "boom in handler", "panicInHandler")
}

// TestRequestDeadlineLogsALatePanic: a handler that panics after its
// deadline has no response left to fail, but its panic is still logged.
func TestRequestDeadlineLogsALatePanic(t *testing.T) {
	sink, logger := newLogSink()
	useDefaultLogger(t, logger)

	release := make(chan struct{})
	srv := newServer(t, []func(http.Handler) http.Handler{mustDeadline(t, 20*time.Millisecond)}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			<-release
			panicInHandler(w, r)
		})
	})
	if resp, body := do(t, srv, http.MethodGet, "/api/v1/pods"); resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504: %s", resp.StatusCode, body)
	}
	close(release)
	recv(t, sink.wrote)
	sink.mustContain(t, "after its deadline", "boom in handler", "panicInHandler")
}

func TestWithRequestDeadlineConfig(t *testing.T) {
	if _, err := WithRequestDeadline(-time.Second); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("negative timeout: err %v, want ErrInvalidConfig", err)
	}

	remaining := make(chan time.Duration, 1)
	srv := newServer(t, []func(http.Handler) http.Handler{mustDeadline(t, 0)}, func(r chi.Router) {
		r.Get("/", func(w http.ResponseWriter, r *http.Request) {
			deadline, _ := r.Context().Deadline()
			remaining <- time.Until(deadline)
		})
	})
	do(t, srv, http.MethodGet, "/")
	if d := recv(t, remaining); d > DefaultRequestTimeout || d < DefaultRequestTimeout-waitLimit {
		t.Errorf("zero timeout left %v, want DefaultRequestTimeout", d)
	}
}

// useDefaultLogger makes l slog's default for the test. slog.SetDefault also
// redirects the log package, which restoring slog's default does not undo.
func useDefaultLogger(t *testing.T, l *slog.Logger) {
	prev, out, flags := slog.Default(), log.Writer(), log.Flags()
	t.Cleanup(func() {
		slog.SetDefault(prev)
		log.SetOutput(out)
		log.SetFlags(flags)
	})
	slog.SetDefault(l)
}
