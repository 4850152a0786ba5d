package upstream

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
)

// dnsUpstream returns an upstream for http://registry.test:8080 over net,
// with name resolving to the first n of backends (each at 192.0.2.<i+1>).
func dnsUpstream(t *testing.T, net *fakeNet, backends []*backend, n int) *Upstream {
	t.Helper()
	for i, b := range backends {
		net.route(fmt.Sprintf("192.0.2.%d:8080", i+1), b.addr())
	}
	resolveTo(net, n)
	return newUpstream(t, Config{URLs: []string{"http://registry.test:8080"}, Resolver: net, Transport: net.transport()})
}

func resolveTo(net *fakeNet, n int) {
	var addrs []string
	for i := range n {
		addrs = append(addrs, fmt.Sprintf("192.0.2.%d", i+1))
	}
	net.setName("registry.test", addrs...)
}

func TestDNSNameBalancesEveryAddress(t *testing.T) {
	backends := []*backend{newBackend(t), newBackend(t), newBackend(t), newBackend(t)}
	fnet := newFakeNet()
	u := dnsUpstream(t, fnet, backends, 3)
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	assertRoundRobin(t, picks(t, u, 6), "192.0.2.1:8080", "192.0.2.2:8080", "192.0.2.3:8080")

	// Each pick reaches its own replica through Transport.
	for range 6 {
		ep, _ := u.Pick()
		req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, ep.String()+"/api", nil)
		resp, err := u.Transport().RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for i, b := range backends[:3] {
		if got := b.hits.Load(); got != 2 {
			t.Errorf("replica %d got %d requests, want 2", i+1, got)
		}
	}

	resolveTo(fnet, 4) // a fourth replica appears
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	assertRoundRobin(t, picks(t, u, 8), "192.0.2.1:8080", "192.0.2.2:8080", "192.0.2.3:8080", "192.0.2.4:8080")

	resolveTo(fnet, 2) // and two go away
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	assertRoundRobin(t, picks(t, u, 4), "192.0.2.1:8080", "192.0.2.2:8080")
	if eps := u.Endpoints(); len(eps) != 2 || eps[0].ServerName != "registry.test" {
		t.Errorf("Endpoints = %+v, want two with server name registry.test", eps)
	}
}

func TestNewAddressIsUsedOnlyOnceHealthy(t *testing.T) {
	backends := []*backend{newBackend(t), newBackend(t)}
	fnet := newFakeNet()
	u := dnsUpstream(t, fnet, backends, 1)
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	backends[1].down.Store(true)
	resolveTo(fnet, 2)
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	assertRoundRobin(t, picks(t, u, 2), "192.0.2.1:8080")
}

func TestFailedLookupKeepsAddresses(t *testing.T) {
	backends := []*backend{newBackend(t), newBackend(t)}
	fnet := newFakeNet()
	u := dnsUpstream(t, fnet, backends, 2)
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	blip := &net.DNSError{Err: "server misbehaving", Name: "registry.test", IsTemporary: true}
	fnet.failName("registry.test", blip)
	if err := u.Resolve(ctx(t)); !errors.Is(err, blip) {
		t.Fatalf("Resolve = %v, want the lookup error", err)
	}
	assertRoundRobin(t, picks(t, u, 4), "192.0.2.1:8080", "192.0.2.2:8080")

	fnet.mu.Lock()
	delete(fnet.names, "registry.test")
	delete(fnet.errs, "registry.test")
	fnet.mu.Unlock()
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatalf("Resolve of a name that no longer exists = %v, want nil", err)
	}
	if eps := u.Endpoints(); len(eps) != 0 {
		t.Fatalf("Endpoints after no such host = %+v, want none", eps)
	}
	if _, err := u.Pick(); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Pick = %v, want ErrNoEndpoint", err)
	}
}
