package aggregator

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
)

// TestGatedAuthorizer: answers come from the cache only while trusted; an
// answer asked around the cache still advances its revision, so a stale
// allow cached before is not used once the streams are back.
func TestGatedAuthorizer(t *testing.T) {
	var calls atomic.Int32
	revision := atomic.Int64{}
	direct := authz.AuthorizerFunc(func(context.Context, authz.Attributes) (authz.Result, error) {
		calls.Add(1)
		return authz.Result{Decision: authz.DecisionAllow, Revision: revision.Load()}, nil
	})
	cached, err := authz.NewCached(direct, authz.CacheConfig{AllowTTL: time.Hour, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	var trusted atomic.Bool
	g := &gatedAuthorizer{cached: cached, direct: direct, trusted: trusted.Load}
	ask := func() {
		t.Helper()
		if _, err := g.Authorize(context.Background(), authz.Attributes{Verb: "get"}); err != nil {
			t.Fatal(err)
		}
	}
	trusted.Store(true)
	ask()
	ask()
	if n := calls.Load(); n != 1 {
		t.Fatalf("trusted: %d calls, want 1 (the second from the cache)", n)
	}
	trusted.Store(false)
	revision.Store(5)
	ask()
	if n := calls.Load(); n != 2 {
		t.Fatalf("untrusted: %d calls, want the cache bypassed", n)
	}
	trusted.Store(true)
	ask()
	if n := calls.Load(); n != 3 {
		t.Fatalf("trusted again: %d calls, want the answer cached before revision 5 dropped", n)
	}
}

// TestGatedAuthenticator: the cache is used only while trusted.
func TestGatedAuthenticator(t *testing.T) {
	var calls atomic.Int32
	direct := authn.AuthenticatorFunc(func(context.Context, string) (*authn.Response, bool, error) {
		calls.Add(1)
		return &authn.Response{}, true, nil
	})
	cached, err := authn.NewCached(direct, authn.CacheConfig{TTL: time.Hour, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	var trusted atomic.Bool
	g := &gatedAuthenticator{cached: cached, direct: direct, trusted: trusted.Load}
	for _, tr := range []bool{true, true, false, false} {
		trusted.Store(tr)
		if _, ok, err := g.AuthenticateToken(context.Background(), "tok"); !ok || err != nil {
			t.Fatalf("AuthenticateToken = %v %v", ok, err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3: one cached while trusted, none while not", n)
	}
}
