package upstream

import (
	"crypto/tls"
	"net/http"
	"sync"
)

// maxIdlePerEndpoint replaces http.DefaultTransport's 2 idle connections
// per host, far too few for a proxy that sends every client's requests to
// the same few endpoints.
const maxIdlePerEndpoint = 64

// nameTransport sends a request for an endpoint found through DNS through
// a clone of base whose TLS config verifies that DNS name: the request's
// URL holds the endpoint's IP address, which a service's certificate does
// not name. Each clone keeps its own keep-alive connections.
type nameTransport struct {
	base       *http.Transport
	serverName func(host string) string

	mu     sync.Mutex
	byName map[string]*http.Transport
}

// newTransport wraps rt as described by Config.Transport.
func newTransport(rt http.RoundTripper, serverName func(string) string) http.RoundTripper {
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = maxIdlePerEndpoint
		rt = t
	}
	base, ok := rt.(*http.Transport)
	if !ok || (base.TLSClientConfig != nil && base.TLSClientConfig.ServerName != "") {
		return rt // the caller has decided how TLS names are verified
	}
	return &nameTransport{base: base, serverName: serverName, byName: map[string]*http.Transport{}}
}

// RoundTrip implements http.RoundTripper.
func (t *nameTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return t.base.RoundTrip(req)
	}
	name := t.serverName(req.URL.Host)
	if name == "" {
		return t.base.RoundTrip(req)
	}
	return t.forName(name).RoundTrip(req)
}

func (t *nameTransport) forName(name string) *http.Transport {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.byName[name]; ok {
		return c
	}
	base := t.base
	c := base.Clone()
	if c.TLSClientConfig == nil {
		c.TLSClientConfig = &tls.Config{}
		// Setting a TLS config turns off HTTP/2 unless forced; base had
		// it on if it dials with net/http's own dialers.
		c.ForceAttemptHTTP2 = c.ForceAttemptHTTP2 || (base.DialContext == nil && base.DialTLSContext == nil)
	}
	c.TLSClientConfig.ServerName = name
	t.byName[name] = c
	return c
}

// CloseIdleConnections closes the idle connections of every clone, as
// http.Client.CloseIdleConnections expects of a transport.
func (t *nameTransport) CloseIdleConnections() {
	t.base.CloseIdleConnections()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.byName {
		c.CloseIdleConnections()
	}
}

// http1Only is rt made to speak HTTP/1.1 only, when it is an
// *http.Transport (nil meaning a default one); any other RoundTripper is
// the caller's and is kept as it is.
func http1Only(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	base, ok := rt.(*http.Transport)
	if !ok {
		return rt
	}
	t := base.Clone()
	t.ForceAttemptHTTP2 = false
	t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	if t.TLSClientConfig != nil {
		t.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	if rt == http.DefaultTransport {
		t.MaxIdleConnsPerHost = maxIdlePerEndpoint
	}
	return t
}
