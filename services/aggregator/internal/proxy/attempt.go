package proxy

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
)

// attempt is what the proxy knows about one forwarded request, carried in
// its context from ServeHTTP through the ReverseProxy's hooks.
type attempt struct {
	target *url.URL
	// respHeader is the client's response header map, to reconcile the
	// Audit-Id the aggregator set with the backend's.
	respHeader http.Header
	// err is a Decorate failure: the gate transport returns it instead of
	// sending.
	err error
	// sent tells whether the request's headers went to a backend
	// connection, after which the backend may act on it. Set from the
	// transport's goroutines.
	sent atomic.Bool
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

func attemptFrom(ctx context.Context) (*attempt, bool) {
	a, ok := ctx.Value(attemptKey{}).(*attempt)
	return a, ok
}

// trace follows the transport's attempts. Each one starts with GetConn;
// net/http retries a request on another connection only when nothing of it
// was written or it is idempotent, so the last attempt decides whether a
// failed request might have been acted on. WroteHeaders fires once the
// headers are in the connection's buffer, before they leave it, so sent
// errs on the side of "maybe".
func (a *attempt) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn:      func(string) { a.sent.Store(false) },
		WroteHeaders: func() { a.sent.Store(true) },
	}
}

// gate is the proxy's transport: it refuses to send a request whose
// Decorate failed (ReverseProxy's Rewrite cannot return an error).
type gate struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (g gate) RoundTrip(req *http.Request) (*http.Response, error) {
	if a, ok := attemptFrom(req.Context()); ok && a.err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, a.err
	}
	return g.next.RoundTrip(req)
}
