package filters

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/recovery"
)

// panicInHandler is a named function so that tests can find it in a logged
// stack.
func panicInHandler(http.ResponseWriter, *http.Request) { panic("boom in handler") }

func TestPanicRecovery(t *testing.T) {
	sink, logger := newLogSink()
	srv := newServer(t, []func(http.Handler) http.Handler{recovery.Middleware(logger), WithRequestID()}, func(r chi.Router) {
		r.Get("/panic", panicInHandler)
		r.Get("/ok", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	})

	// Both requests on one keep-alive connection: the panic must not cost it.
	var reused []bool
	get := func(path string) (*http.Response, []byte) {
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return send(t, srv.Client(), req)
	}

	resp, body := get("/panic")
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500: %s", resp.StatusCode, body)
	}
	s := statusOf(t, resp, body)
	if s.Reason != metav1.StatusReasonInternalError {
		t.Errorf("reason %q, want InternalError", s.Reason)
	}
	if strings.Contains(string(body), "boom") {
		t.Errorf("the panic value reached the client: %s", body)
	}
	if resp.Header.Get(HeaderAuditID) == "" {
		t.Error("the 500 lost the Audit-Id header")
	}
	sink.mustContain(t, "panic serving request", "boom in handler", "panicInHandler", resp.Header.Get(HeaderAuditID))

	resp, body = get("/ok")
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Fatalf("request after the panic: %d %s", resp.StatusCode, body)
	}
	if len(reused) != 2 || !reused[1] {
		t.Errorf("connection reuse %v: the panic closed the connection", reused)
	}
}

// TestPanicRecoveryPassesAbortHandler checks that http.ErrAbortHandler
// reaches net/http, which drops the connection without an answer; recovered,
// it would become a 500 the handler never meant to send.
func TestPanicRecoveryPassesAbortHandler(t *testing.T) {
	sink, logger := newLogSink()
	srv := newServer(t, []func(http.Handler) http.Handler{recovery.Middleware(logger)}, func(r chi.Router) {
		r.Get("/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	})
	resp, err := srv.Client().Get(srv.URL + "/abort")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%d) to an aborted request", resp.StatusCode)
	}
	if got := sink.String(); got != "" {
		t.Errorf("an abort was logged as a panic: %s", got)
	}
}

// TestPanicRecoveryAfterResponseStarted checks that a panic mid-response
// breaks the response rather than ending it as if it were complete.
func TestPanicRecoveryAfterResponseStarted(t *testing.T) {
	sink, logger := newLogSink()
	srv := newServer(t, []func(http.Handler) http.Handler{recovery.Middleware(logger)}, func(r chi.Router) {
		r.Get("/half", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "partial")
			http.NewResponseController(w).Flush() // through the recovery's writer
			panic("boom mid-response")
		})
	})
	resp, err := srv.Client().Get(srv.URL + "/half")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want the 200 already sent", resp.StatusCode)
	}
	if body, err := io.ReadAll(resp.Body); err == nil {
		t.Fatalf("read a complete body %q from a response that panicked", body)
	}
	sink.mustContain(t, "boom mid-response")
}
