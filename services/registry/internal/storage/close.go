package storage

import (
	"context"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// NewClosableStore is NewStore for a resource that may stop being served,
// as a custom resource does when its definition changes or goes: Close
// releases it.
func (b *Backend) NewClosableStore(info *resource.Info, opts StoreOptions) *Store {
	ctx, cancel := context.WithCancel(b.ctx)
	s := b.newStore(ctx, info, opts)
	s.stop = func() {
		cancel()
		b.metrics.remove(s)
	}
	return s
}

// Close stops a closable store's cache and ends its watches, as kube ends
// the watches of a custom resource whose definition changed; clients
// resume them on the store that replaces it. Reads and writes already
// under way finish against etcd.
func (s *Store) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	for w := range s.cache.watchers {
		w.close()
		delete(s.cache.watchers, w)
	}
}
