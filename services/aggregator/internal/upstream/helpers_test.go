package upstream

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait in these tests, so that a bug fails a test
// instead of hanging it; nothing waits on it to synchronise.
const waitLimit = 10 * time.Second

// fakeNet stands for DNS and the network together. Names resolve to
// documentation addresses (192.0.2.0/24, which route nowhere), and the
// transport it builds dials each address:port to a test server listening
// on 127.0.0.1:0. So one name can resolve to several endpoints on one port,
// as a headless Service does, while every test server keeps its own
// random port. A dial to an address with no route is refused.
type fakeNet struct {
	mu     sync.Mutex
	names  map[string][]string
	errs   map[string]error
	routes map[string]string // address:port → the test server's address
}

func newFakeNet() *fakeNet {
	return &fakeNet{names: map[string][]string{}, errs: map[string]error{}, routes: map[string]string{}}
}

// LookupHost implements Resolver.
func (n *fakeNet) LookupHost(_ context.Context, host string) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.errs[host]; err != nil {
		return nil, err
	}
	if addrs, ok := n.names[host]; ok {
		return append([]string(nil), addrs...), nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// setName makes name resolve to addrs.
func (n *fakeNet) setName(name string, addrs ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.names[name] = addrs
	delete(n.errs, name)
}

// failName makes lookups of name fail with err.
func (n *fakeNet) failName(name string, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.errs[name] = err
}

// route sends connections for addr (address:port) to the server at real.
func (n *fakeNet) route(addr, real string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.routes[addr] = real
}

// transport returns an http.Transport that dials through the routes.
func (n *fakeNet) transport() *http.Transport {
	var d net.Dialer
	return &http.Transport{
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			n.mu.Lock()
			real, ok := n.routes[addr]
			n.mu.Unlock()
			if !ok {
				return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
			}
			return d.DialContext(ctx, network, real)
		},
	}
}

// backend is a test server that answers its health path with 200 unless
// it is down, and counts every other request.
type backend struct {
	srv  *httptest.Server
	down atomic.Bool
	hits atomic.Int64
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	b := &backend{}
	b.srv = httptest.NewServer(b.handler())
	t.Cleanup(b.srv.Close)
	return b
}

func (b *backend) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == DefaultHealthPath {
			if b.down.Load() {
				http.Error(w, "not ready", http.StatusInternalServerError)
			}
			return
		}
		b.hits.Add(1)
	})
}

// addr is the backend's 127.0.0.1:port.
func (b *backend) addr() string { return b.srv.Listener.Addr().String() }

// newUpstream builds an upstream, failing the test on error.
func newUpstream(t *testing.T, cfg Config) *Upstream {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "test"
	}
	cfg.Log = slog.New(slog.DiscardHandler)
	u, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return u
}

// ctx is a context bounded by waitLimit.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return c
}

// picks returns the hosts of n successive picks.
func picks(t *testing.T, u *Upstream, n int) []string {
	t.Helper()
	var hosts []string
	for range n {
		ep, err := u.Pick()
		if err != nil {
			t.Fatalf("Pick: %v", err)
		}
		hosts = append(hosts, ep.Host)
	}
	return hosts
}

// assertRoundRobin checks that hosts cycle through want, in any order,
// each appearing in turn.
func assertRoundRobin(t *testing.T, hosts []string, want ...string) {
	t.Helper()
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
	}
	for i, h := range hosts {
		if !wanted[h] {
			t.Fatalf("pick %d went to %s, want one of %v (picks %v)", i, h, want, hosts)
		}
		if i >= len(want) && h != hosts[i-len(want)] {
			t.Fatalf("picks %v do not cycle through %d endpoints", hosts, len(want))
		}
	}
	seen := map[string]bool{}
	for _, h := range hosts[:len(want)] {
		seen[h] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("picks %v do not visit all of %v", hosts, want)
	}
}
