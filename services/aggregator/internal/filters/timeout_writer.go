package filters

import (
	"maps"
	"net/http"
	"sync"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// timeoutWriter is the writer WithRequestDeadline hands a handler running in
// a goroutine of its own. Once the deadline passes, the goroutine serving
// the request owns the real writer again: the handler's later writes fail
// with http.ErrHandlerTimeout instead of racing the 504.
type timeoutWriter struct {
	w http.ResponseWriter
	// header is the handler's own header map, copied to w when the response
	// starts, so that the 504 never reads a map the handler may still be
	// writing to.
	header http.Header

	mu       sync.Mutex
	started  bool
	timedOut bool
}

func newTimeoutWriter(w http.ResponseWriter) *timeoutWriter {
	return &timeoutWriter{w: w, header: w.Header().Clone()}
}

func (tw *timeoutWriter) Header() http.Header { return tw.header }

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.started {
		return
	}
	tw.start()
	tw.w.WriteHeader(code)
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if !tw.started {
		tw.start()
	}
	return tw.w.Write(p)
}

// Flush keeps streaming responses streaming (the router's proxy flushes
// responses of unknown length as they come).
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return
	}
	if !tw.started {
		tw.start()
	}
	_ = http.NewResponseController(tw.w).Flush()
}

// start commits the handler's headers; the caller holds mu.
func (tw *timeoutWriter) start() {
	tw.started = true
	maps.Copy(tw.w.Header(), tw.header.Clone())
}

// timeout takes the writer back from the handler, answering err if the
// handler had not started a response. It reports whether it answered; if
// not, the response is half written and can only be aborted.
func (tw *timeoutWriter) timeout(err error) bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.timedOut = true
	if tw.started {
		return false
	}
	apierror.Write(tw.w, err)
	return true
}
