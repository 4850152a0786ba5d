package discovery

import (
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// lastServed remembers each APIService's group version as its backend
// last described it, so that while the backend does not answer its
// resources are still listed, marked Stale, as kube's aggregator keeps
// them: clients then keep knowing what the group serves.
type lastServed struct {
	mu sync.Mutex
	m  map[string]apidiscoveryv2.APIVersionDiscovery // by APIService name
}

// remember records what s's backend answered.
func (l *lastServed) remember(s APIService, v apidiscoveryv2.APIVersionDiscovery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]apidiscoveryv2.APIVersionDiscovery{}
	}
	l.m[s.Name] = v
}

// stale is s's group version when its backend does not answer: what it
// last answered, or no resources if it never did, marked Stale.
func (l *lastServed) stale(s APIService) apidiscoveryv2.APIVersionDiscovery {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[s.Name]
	if !ok {
		v = apidiscoveryv2.APIVersionDiscovery{Version: s.Version}
	}
	v.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	return v
}

// keep forgets the APIServices not in svcs (deleted ones).
func (l *lastServed) keep(svcs []APIService) {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make(map[string]bool, len(svcs))
	for _, s := range svcs {
		names[s.Name] = true
	}
	for name := range l.m {
		if !names[name] {
			delete(l.m, name)
		}
	}
}
