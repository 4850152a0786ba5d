package filters

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// DefaultRequestTimeout is kube's --request-timeout default.
const DefaultRequestTimeout = 60 * time.Second

// WithRequestDeadline returns a middleware that bounds how long a request
// may take, as kube's WithRequestDeadline and
// WithTimeoutForNonLongRunningRequests do together: the request's context
// gets a deadline of timeout (zero means DefaultRequestTimeout), or of the
// ?timeout= query parameter when that is shorter, and a handler that has not
// answered by then is answered for: 504 Timeout, without Retry-After, since
// the request may have reached storage and must not be replayed. A handler
// that had already started its response cannot be answered for; the
// response is aborted (http.ErrAbortHandler) so that the client does not
// take it for a whole one. Long-running requests (requestinfo.IsLongRunning) have no
// deadline here; a watch ends on its own ?timeoutSeconds=.
//
// The handler runs in a goroutine of its own, so that the 504 can be written
// while it is still busy; its panics are carried back and panicked again in
// the serving goroutine, for recovery.Middleware outside. A handler that
// panics after its deadline has nobody to answer, so its panic goes to
// slog.Default().
func WithRequestDeadline(timeout time.Duration) (func(http.Handler) http.Handler, error) {
	if timeout < 0 {
		return nil, fmt.Errorf("%w: request deadline: negative timeout %v", ErrInvalidConfig, timeout)
	}
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info, r := request.AttachInfo(r)
			if requestinfo.IsLongRunning(info) {
				next.ServeHTTP(w, r)
				return
			}
			d, err := requestTimeout(r, timeout)
			if err != nil {
				apierror.Write(w, apierrors.NewBadRequest(err.Error()))
				return
			}
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			serveWithDeadline(w, r.WithContext(ctx), next)
		})
	}, nil
}

// requestTimeout applies kube's rule for ?timeout=: it may shorten the
// server's timeout, never lengthen it, and a value that is not a duration
// is a bad request.
func requestTimeout(r *http.Request, limit time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get("timeout")
	if v == "" {
		return limit, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("invalid timeout specified in the request URL - %v", err)
	}
	if d > 0 && d < limit {
		return d, nil
	}
	return limit, nil
}

// serveWithDeadline runs next until it returns or r's context is done,
// whichever comes first.
func serveWithDeadline(w http.ResponseWriter, r *http.Request, next http.Handler) {
	tw := newTimeoutWriter(w)
	// Buffered, so that a handler finishing after its deadline does not wait
	// forever for a reader that has moved on.
	done := make(chan any, 1)
	go func() {
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler {
				p = recovery.Capture(p)
			}
			done <- p
		}()
		next.ServeHTTP(tw, r)
	}()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
	case <-r.Context().Done():
		go logLatePanic(r, done)
		if !tw.timeout(apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0)) {
			panic(http.ErrAbortHandler)
		}
	}
}

// logLatePanic waits for a handler that outlived its deadline and logs its
// panic, if it has one.
func logLatePanic(r *http.Request, done <-chan any) {
	hp, ok := (<-done).(*recovery.Panic)
	if !ok {
		return
	}
	slog.Error("panic serving request after its deadline",
		"method", r.Method, "uri", r.RequestURI,
		"panic", fmt.Sprint(hp.Value), "stack", string(hp.Stack))
}
