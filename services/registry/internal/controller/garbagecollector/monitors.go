package garbagecollector

import (
	"context"
	"log/slog"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/apiresource"
)

// monitor is the informer of one resource.
type monitor struct {
	cancel context.CancelFunc
	synced cache.InformerSynced
}

// monitors keeps one informer a collectable resource, feeding the graph.
type monitors struct {
	dynamic dynamic.Interface
	graph   *graph
	enqueue func(work)
	log     *slog.Logger

	mu      sync.Mutex
	running map[schema.GroupVersionResource]*monitor
}

func newMonitors(d dynamic.Interface, g *graph, enqueue func(work), log *slog.Logger) *monitors {
	return &monitors{dynamic: d, graph: g, enqueue: enqueue, log: log, running: map[schema.GroupVersionResource]*monitor{}}
}

// update starts informers for new resources and stops those of resources
// no longer served. A resource whose group failed discovery is kept: it
// may well still be there.
func (m *monitors) update(ctx context.Context, want []apiresource.Resource, groupFailed func(string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	wanted := map[schema.GroupVersionResource]bool{}
	for _, r := range want {
		wanted[r.GroupVersionResource] = true
		if m.running[r.GroupVersionResource] == nil {
			m.running[r.GroupVersionResource] = m.start(ctx, r.GroupVersionResource)
			m.log.Debug("watching resource", "resource", r.GroupVersionResource)
		}
	}
	for gvr, mon := range m.running {
		if wanted[gvr] || groupFailed(gvr.Group) {
			continue
		}
		mon.cancel()
		delete(m.running, gvr)
		m.log.Info("resource no longer served; forgetting its objects", "resource", gvr)
		m.enqueue(m.graph.removeResource(gvr))
	}
}

// start runs an informer for one resource.
func (m *monitors) start(ctx context.Context, gvr schema.GroupVersionResource) *monitor {
	ctx, cancel := context.WithCancel(ctx)
	inf := dynamicinformer.NewFilteredDynamicInformer(m.dynamic, gvr, "", 0, cache.Indexers{}, nil).Informer()
	// The graph needs metadata only; dropping the rest keeps the cache of
	// every object in the cluster small.
	_ = inf.SetTransform(metadataOnly)
	reg, err := inf.AddEventHandler(m.handler(gvr))
	if err != nil {
		// Only possible once the informer has stopped, which it has not.
		m.log.Error("cannot watch resource", "resource", gvr, "err", err)
		cancel()
		return &monitor{cancel: func() {}, synced: func() bool { return true }}
	}
	go inf.RunWithContext(ctx)
	return &monitor{cancel: cancel, synced: reg.HasSynced}
}

// handler turns informer events into graph changes.
func (m *monitors) handler(gvr schema.GroupVersionResource) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				m.enqueue(m.graph.upsert(gvr, u))
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*unstructured.Unstructured)
			cur, ok2 := newObj.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return
			}
			// A relist can show a name recreated under a new uid as an
			// update; to the graph it is a deletion and a creation.
			if old.GetUID() != cur.GetUID() {
				m.enqueue(m.graph.remove(old.GetUID()))
			}
			m.enqueue(m.graph.upsert(gvr, cur))
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				m.enqueue(m.graph.remove(u.GetUID()))
			}
		},
	}
}

// synced reports whether every informer has delivered its first list.
func (m *monitors) synced() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mon := range m.running {
		if !mon.synced() {
			return false
		}
	}
	return true
}

// count is the number of resources watched.
func (m *monitors) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running)
}

// stopAll stops every informer.
func (m *monitors) stopAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for gvr, mon := range m.running {
		mon.cancel()
		delete(m.running, gvr)
	}
}

// metadataOnly strips an object to what the graph reads.
func metadataOnly(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	out.SetAPIVersion(u.GetAPIVersion())
	out.SetKind(u.GetKind())
	out.SetNamespace(u.GetNamespace())
	out.SetName(u.GetName())
	out.SetUID(u.GetUID())
	out.SetResourceVersion(u.GetResourceVersion())
	out.SetOwnerReferences(u.GetOwnerReferences())
	out.SetFinalizers(u.GetFinalizers())
	out.SetDeletionTimestamp(u.GetDeletionTimestamp())
	return out, nil
}
