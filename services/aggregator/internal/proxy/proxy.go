package proxy

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// DefaultRetryAfter is how long a 503 asks the client to wait.
const DefaultRetryAfter = time.Second

// Config configures a Proxy.
type Config struct {
	// Upstream is where requests go; its Transport carries them, with
	// keep-alive connections to every endpoint. Required; the caller
	// starts it.
	Upstream *upstream.Upstream
	// Decorate, when set, is called on every outgoing request once its
	// URL is final and the client's identity headers are gone. The
	// aggregator sets its signed identity header here. An error answers
	// 500 and nothing is sent.
	Decorate func(*http.Request) error
	// RetryAfter is what a 503 asks the client to wait, in whole seconds;
	// zero means DefaultRetryAfter.
	RetryAfter time.Duration
	// Log receives failed round trips; nil means slog.Default().
	Log *slog.Logger
	// Instrument, when set, wraps the transport requests go out with
	// (the aggregator times them per stage).
	Instrument func(http.RoundTripper) http.RoundTripper
	// BufferBody, when positive, has each request's body read into memory,
	// up to that many bytes, before Decorate runs: a Decorate that signs
	// the body (the aggregator's identity assertion binds its digest) can
	// then read it without consuming it. A larger body is answered 413 and
	// nothing is sent. Requests without a body (reads, watches) stream as
	// ever. Zero streams every body as the client sends it.
	BufferBody int64
}

// Proxy forwards requests to one upstream. It is an http.Handler.
type Proxy struct {
	up         *upstream.Upstream
	decorate   func(*http.Request) error
	retryAfter time.Duration
	log        *slog.Logger
	transport  http.RoundTripper
	bufferBody int64
	buffered   *httputil.ReverseProxy
	streaming  *httputil.ReverseProxy // for watches and other long-running requests
	upgrading  *httputil.ReverseProxy // for requests that upgrade the connection, over HTTP/1.1
}

// New returns a proxy to cfg.Upstream.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil {
		return nil, fmt.Errorf("%w: no upstream", ErrInvalidConfig)
	}
	if cfg.RetryAfter < 0 || cfg.BufferBody < 0 {
		return nil, fmt.Errorf("%w: negative RetryAfter or BufferBody", ErrInvalidConfig)
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	p := &Proxy{
		up: cfg.Upstream, decorate: cfg.Decorate, log: cfg.Log,
		retryAfter: cfg.RetryAfter,
		transport:  instrument(cfg, cfg.Upstream.Transport()),
		bufferBody: cfg.BufferBody,
	}
	p.buffered = p.reverseProxy(p.transport, 0)
	p.streaming = p.reverseProxy(p.transport, -1)
	p.upgrading = p.reverseProxy(instrument(cfg, cfg.Upstream.UpgradeTransport()), -1)
	return p, nil
}

// reverseProxy builds the ReverseProxy behind p. ReverseProxy already
// flushes at once when a response has no length, as a watch has none; a
// negative flushInterval says so for long-running requests whatever their
// headers.
func (p *Proxy) reverseProxy(transport http.RoundTripper, flushInterval time.Duration) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tracing.Transport(transport),
		FlushInterval:  flushInterval,
		ModifyResponse: keepBackendAuditID,
		ErrorHandler:   p.handleError,
		ErrorLog:       slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
	}
}

// ServeHTTP forwards r to a healthy endpoint of the upstream, or answers
// 503 with Retry-After when there is none, having sent nothing.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target, err := p.up.Pick()
	if err != nil {
		p.log.Warn("no endpoint to proxy to", "upstream", p.up.Name(), "method", r.Method, "path", r.URL.Path)
		apierror.Write(w, p.unavailable(err))
		return
	}
	r = r.WithContext(withAttempt(r.Context(), &attempt{target: target, respHeader: w.Header()}))
	if !p.readBody(w, r) {
		return
	}
	if isUpgrade(r) {
		// ReverseProxy passes the upgraded connection through both ways.
		p.upgrading.ServeHTTP(w, r)
		return
	}
	if isLongRunning(r) {
		p.streaming.ServeHTTP(w, r)
		return
	}
	p.buffered.ServeHTTP(w, r)
}

// instrument is rt behind the gate, wrapped as cfg.Instrument says.
func instrument(cfg Config, rt http.RoundTripper) http.RoundTripper {
	var transport http.RoundTripper = gate{next: rt}
	if cfg.Instrument != nil {
		transport = cfg.Instrument(transport)
	}
	return transport
}

// isUpgrade reports whether r asks to upgrade its connection
// (Connection: Upgrade with an Upgrade header), as kubectl exec, attach
// and port-forward do.
func isUpgrade(r *http.Request) bool {
	return r.Header.Get("Upgrade") != "" && httpguts.HeaderValuesContainsToken(r.Header["Connection"], "upgrade")
}

// isLongRunning applies the aggregator's own rule (requestinfo.IsLongRunning),
// with the request info an earlier filter attached when there is one.
func isLongRunning(r *http.Request) bool {
	return requestinfo.IsLongRunning(request.InfoOf(r))
}

// rewrite turns the client's request into the backend's: the endpoint's
// URL, X-Forwarded-*, no client identity, the Audit-Id, then Decorate.
// ReverseProxy has already removed the hop-by-hop headers.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	a, _ := attemptFrom(pr.In.Context())
	pr.SetURL(a.target)
	pr.SetXForwarded()
	stripClientIdentity(pr.Out.Header)
	propagateAuditID(pr.Out.Header, a.respHeader)
	p.decorateOut(pr.Out, a)
	pr.Out = pr.Out.WithContext(httptrace.WithClientTrace(pr.Out.Context(), a.trace()))
}

// decorateOut runs the hook; a failure is kept for the gate transport.
func (p *Proxy) decorateOut(out *http.Request, a *attempt) {
	if p.decorate == nil {
		return
	}
	if err := p.decorate(out); err != nil {
		a.err = fmt.Errorf("%w: %w", ErrDecorate, err)
	}
}
