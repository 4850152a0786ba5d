package discovery

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// switchable is a backend that can be taken down.
type switchable struct {
	Backend
	down atomic.Bool
}

func (s *switchable) Get(ctx context.Context, path string) (*http.Response, error) {
	if s.down.Load() {
		return nil, errors.New("connection refused")
	}
	return s.Backend.Get(ctx, path)
}

// An APIService whose backend stops answering keeps the resources it
// last listed, marked Stale, as kube's aggregator keeps them; one that
// never answered, or that was deleted meanwhile, lists none.
func TestStaleAPIServiceKeepsItsResources(t *testing.T) {
	h, err := New(Config{Table: NewDefaultTable(), Backends: map[string]Backend{
		Registry: discoveryServer(t, Registry, true), Authn: discoveryServer(t, Authn, true), Authz: discoveryServer(t, Authz, true),
	}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	b := &switchable{Backend: discoveryServer(t, "metrics", false, "metrics.example.com/v1")}
	s := APIService{Name: "v1.metrics.example.com", Group: "metrics.example.com", Version: "v1", Backend: b}
	describe := func() string {
		g := h.apiServiceVersion(context.Background(), s)
		return string(g.Versions[0].Freshness) + " " + resourceNames(g.Versions[0])
	}
	if got := describe(); got != string(apidiscoveryv2.DiscoveryFreshnessCurrent)+" things[status]" {
		t.Fatalf("answering: %q", got)
	}
	b.down.Store(true)
	if got := describe(); got != string(apidiscoveryv2.DiscoveryFreshnessStale)+" things[status]" {
		t.Errorf("down after answering: %q, want Stale with its resources", got)
	}
	h.lastServed.keep(nil) // deleted, then created again
	if got := describe(); got != string(apidiscoveryv2.DiscoveryFreshnessStale)+" " {
		t.Errorf("down, never answered since created: %q, want Stale without resources", got)
	}
}
