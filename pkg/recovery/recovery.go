// Package recovery turns a panic in a handler into a 500 Status for that
// request alone, in every kubesplit service.
package recovery

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// errPanic is what the client is told; the panic value stays in the log,
// since it may carry internals the caller has no business seeing.
var errPanic = errors.New("this request caused the server to panic; look in the logs for details")

// auditIDHeader is kube's response header naming a request, which the
// aggregator sets; the log line carries it so the two can be matched.
const auditIDHeader = "Audit-Id"

// Middleware returns a middleware that turns a panic in a later
// handler into a 500 InternalError Status and one error log line with the
// panic value and its stack, so that a bug fails one request rather than the
// process, and the client's keep-alive connection stays usable. A nil logger
// means slog.Default().
//
// http.ErrAbortHandler is panicked again, untouched: it is how a handler
// asks net/http to abort a response (WithRequestDeadline uses it when the
// deadline passes mid-response), and net/http handles it without logging. A
// panic after the response has started cannot become a Status either: it is
// logged and the response aborted the same way, so the client sees a broken
// response instead of a truncated one that looks whole.
func Middleware(logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := &startWriter{ResponseWriter: w}
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				if p == http.ErrAbortHandler {
					panic(p)
				}
				hp := Capture(p)
				logger.Error("panic serving request",
					"method", r.Method, "uri", r.RequestURI,
					"auditID", w.Header().Get(auditIDHeader),
					"panic", fmt.Sprint(hp.Value), "stack", string(hp.Stack))
				if sw.started.Load() {
					panic(http.ErrAbortHandler)
				}
				apierror.Write(w, apierrors.NewInternalError(errPanic))
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

// startWriter records whether the response has started, keeping the
// Flusher and Hijacker of the writer it wraps: every request passes through
// it, watches and exec included.
type startWriter struct {
	http.ResponseWriter
	// started is atomic because with WithRequestDeadline inside, the
	// handler writes from a goroutine of its own.
	started atomic.Bool
}

func (sw *startWriter) WriteHeader(code int) {
	sw.started.Store(true)
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *startWriter) Write(p []byte) (int, error) {
	sw.started.Store(true)
	return sw.ResponseWriter.Write(p)
}

func (sw *startWriter) Flush() {
	sw.started.Store(true)
	_ = http.NewResponseController(sw.ResponseWriter).Flush()
}

func (sw *startWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	sw.started.Store(true)
	return http.NewResponseController(sw.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer for what
// startWriter does not implement (read and write deadlines).
func (sw *startWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }
