package quota

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// watchers are the informers a recount lists objects from, each started
// the first time a quota limits its resource, and only while this replica
// runs the controller: a cluster without quotas, and every replica but the
// leader, watches nothing but the quotas themselves, rather than every
// ConfigMap, Secret, Pod and Service written (each watch event costs the
// registry, the aggregator and admission alike). One term of leadership
// owns one set; it ends with the term.
type watchers struct {
	ctx      context.Context
	typed    informers.SharedInformerFactory
	metadata metadatainformer.SharedInformerFactory // nil: typed informers only
	handler  func(schema.GroupResource) cache.ResourceEventHandler

	mu      sync.Mutex
	started map[schema.GroupResource]cache.SharedIndexInformer
}

func newWatchers(ctx context.Context, client kubernetes.Interface, md metadata.Interface,
	handler func(schema.GroupResource) cache.ResourceEventHandler) *watchers {
	w := &watchers{ctx: ctx, typed: informers.NewSharedInformerFactory(client, 0), handler: handler,
		started: map[schema.GroupResource]cache.SharedIndexInformer{}}
	if md != nil {
		w.metadata = metadatainformer.NewSharedInformerFactory(md, 0)
	}
	return w
}

// informer is gr's informer, started on first use, once it has synced.
func (w *watchers) informer(gr schema.GroupResource, c counter) (cache.SharedIndexInformer, error) {
	w.mu.Lock()
	inf, ok := w.started[gr]
	if !ok {
		inf = c.watch(w)
		if _, err := inf.AddEventHandler(w.handler(gr)); err != nil {
			w.mu.Unlock()
			return nil, err
		}
		w.typed.Start(w.ctx.Done())
		if w.metadata != nil {
			w.metadata.Start(w.ctx.Done())
		}
		w.started[gr] = inf
	}
	w.mu.Unlock()
	if !cache.WaitForCacheSync(w.ctx.Done(), inf.HasSynced) {
		return nil, w.ctx.Err()
	}
	return inf, nil
}

// shutdown waits for the informers to stop; call it once ctx is done.
func (w *watchers) shutdown() {
	w.typed.Shutdown()
	if w.metadata != nil {
		w.metadata.Shutdown()
	}
}
