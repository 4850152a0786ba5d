package upstream

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Endpoint is one address of an upstream, as Endpoints reports it.
type Endpoint struct {
	// URL is where requests go: scheme://address[:port]. It must not be
	// modified.
	URL *url.URL
	// ServerName is the DNS name the address was resolved from, which TLS
	// verifies; empty for an address configured as such.
	ServerName string
	// Healthy tells whether Pick may choose the endpoint.
	Healthy bool
	// Err says why it is not healthy: the last failed check, a reported
	// connection error, or that it has not been checked yet.
	Err error
}

// Upstream is one backend service and its endpoints. It is safe for
// concurrent use; Pick takes no lock.
type Upstream struct {
	settings
	transport http.RoundTripper
	// upgrading carries upgrade requests (exec, attach, port-forward):
	// HTTP/1.1 only, since an HTTP/2 connection cannot be upgraded.
	upgrading http.RoundTripper
	next      atomic.Uint64 // round-robin position
	snap      atomic.Pointer[snapshot]

	mu       sync.Mutex  // guards resolved and eps, and serialises publish
	resolved [][]string  // per source, the addresses of its last good lookup
	eps      []*endpoint // in source order, then address order

	startOnce sync.Once
	// ticker makes the periodic ticks of Start; tests replace it.
	ticker func(time.Duration) (<-chan time.Time, func())
}

// endpoint is an Endpoint's mutable state, guarded by Upstream.mu.
type endpoint struct {
	url        *url.URL
	serverName string
	healthy    bool
	err        error
}

// snapshot is what Pick, Endpoints and the transport read, replaced as a
// whole on every change so that readers never lock.
type snapshot struct {
	endpoints   []Endpoint
	healthy     []*url.URL
	serverNames map[string]string // by URL host (address:port)
}

// New returns an upstream with no endpoints yet: Start (or Resolve) finds
// and checks them.
func New(cfg Config) (*Upstream, error) {
	s, err := cfg.settings()
	if err != nil {
		return nil, err
	}
	u := &Upstream{settings: s, resolved: make([][]string, len(s.sources)), ticker: realTicker}
	u.transport = newTransport(cfg.Transport, u.serverName)
	u.upgrading = newTransport(http1Only(cfg.Transport), u.serverName)
	u.snap.Store(&snapshot{})
	return u, nil
}

// Name returns the upstream's name.
func (u *Upstream) Name() string { return u.name }

// Transport returns the RoundTripper that proxied requests to this
// upstream's endpoints should use: Config.Transport, made to verify each
// endpoint's TLS certificate against its DNS name.
func (u *Upstream) Transport() http.RoundTripper { return u.transport }

// UpgradeTransport is Transport for requests that upgrade their
// connection (SPDY, WebSocket): the same, over HTTP/1.1 only. net/http
// sends only a WebSocket upgrade over HTTP/1.1 by itself; kubectl's SPDY
// exec and port-forward would otherwise go out over HTTP/2 and fail.
func (u *Upstream) UpgradeTransport() http.RoundTripper { return u.upgrading }

// Pick returns the next healthy endpoint in round-robin order, or
// ErrNoEndpoint when none is healthy.
func (u *Upstream) Pick() (*url.URL, error) {
	healthy := u.snap.Load().healthy
	if len(healthy) == 0 {
		return nil, fmt.Errorf("%w: upstream %q", ErrNoEndpoint, u.name)
	}
	i := u.next.Add(1) - 1
	return healthy[i%uint64(len(healthy))], nil
}

// Endpoints returns every endpoint with its state, for readiness reports
// and metrics.
func (u *Upstream) Endpoints() []Endpoint {
	return append([]Endpoint(nil), u.snap.Load().endpoints...)
}

// Report tells the upstream that a request to endpoint ep failed to
// connect: ep receives no more requests until its next successful health
// check. A nil err is ignored, so that only a check brings an endpoint
// back; so is an endpoint the upstream no longer has.
func (u *Upstream) Report(ep *url.URL, err error) {
	if err == nil || ep == nil {
		return
	}
	u.setHealth(ep.String(), err)
}

// setHealth records the outcome of a check or a report for the endpoint
// whose URL is key; err nil means healthy.
func (u *Upstream) setHealth(key string, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, ep := range u.eps {
		if ep.url.String() != key {
			continue
		}
		firstFailure := ep.err == errNotChecked && err != nil
		if ep.healthy != (err == nil) || firstFailure {
			u.logChange(ep, err)
		}
		ep.healthy, ep.err = err == nil, err
		u.publish()
		return
	}
}

// logChange logs an endpoint entering or leaving rotation.
func (u *Upstream) logChange(ep *endpoint, err error) {
	if err == nil {
		u.log.Info("upstream endpoint healthy", "upstream", u.name, "endpoint", ep.url.String())
		return
	}
	u.log.Warn("upstream endpoint unhealthy", "upstream", u.name, "endpoint", ep.url.String(), "err", err)
}

// publish replaces the snapshot with the current state. Callers hold mu.
func (u *Upstream) publish() {
	s := &snapshot{serverNames: make(map[string]string, len(u.eps))}
	for _, ep := range u.eps {
		s.endpoints = append(s.endpoints, Endpoint{URL: ep.url, ServerName: ep.serverName, Healthy: ep.healthy, Err: ep.err})
		if ep.healthy {
			s.healthy = append(s.healthy, ep.url)
		}
		if ep.serverName != "" {
			s.serverNames[ep.url.Host] = ep.serverName
		}
	}
	u.snap.Store(s)
}

// serverName is the DNS name behind the endpoint at host (address:port),
// or "" when there is none.
func (u *Upstream) serverName(host string) string {
	return u.snap.Load().serverNames[host]
}
