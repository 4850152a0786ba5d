package quota

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// resyncPeriod is how often every quota is recounted, kube's default: it
// gives back what was charged for writes that were admitted and then failed.
const resyncPeriod = 5 * time.Minute

// workers recount namespaces in parallel.
const workers = 2

// controller keeps every quota's status: hard as the spec says, used as
// counted from the objects.
type controller struct {
	evals    evaluators
	quotas   *quotaSource
	counted  map[schema.GroupResource]counter
	generic  genericCounter
	client   kubernetes.Interface
	metadata metadata.Interface // nil: objects are watched whole
	log      *slog.Logger

	mu       sync.Mutex
	queue    workqueue.TypedRateLimitingInterface[string] // nil unless running
	watching *watchers                                    // nil unless running
}

func newController(deps plugin.Deps, evals evaluators, quotas *quotaSource, log *slog.Logger) (*controller, error) {
	c := &controller{evals: evals, quotas: quotas, counted: counters(deps.Client), generic: genericCounter{client: deps.Client},
		client: deps.Client, metadata: deps.MetadataClient, log: log}
	qi := deps.Informers.Core().V1().ResourceQuotas().Informer()
	if _, err := qi.AddEventHandler(c.quotaChanges()); err != nil {
		return nil, err
	}
	return c, nil
}

// run is the controller's life while it holds the lease: recount all, then
// whatever changes, until ctx ends.
func (c *controller) run(ctx context.Context) {
	if !cache.WaitForCacheSync(ctx.Done(), c.quotas.synced) {
		return
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: controllerName})
	w := newWatchers(ctx, c.client, c.metadata, c.replenish)
	c.setRunning(q, w)
	defer w.shutdown()
	defer c.setRunning(nil, nil)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { c.work(ctx, q, w) })
	}
	c.enqueueAll()
	t := time.NewTicker(resyncPeriod)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
			c.enqueueAll()
		}
	}
	q.ShutDown()
	wg.Wait()
}

func (c *controller) setRunning(q workqueue.TypedRateLimitingInterface[string], w *watchers) {
	c.mu.Lock()
	c.queue, c.watching = q, w
	c.mu.Unlock()
}

// enqueue asks for a recount of a namespace's quotas; nothing while this
// replica does not run the controller (the leader recounts all on start).
func (c *controller) enqueue(ns string) {
	c.mu.Lock()
	q := c.queue
	c.mu.Unlock()
	if q != nil {
		q.Add(ns)
	}
}

// enqueueAll asks for a recount of every namespace that has a quota.
func (c *controller) enqueueAll() {
	for _, key := range c.quotas.keys() {
		ns, _, _ := cache.SplitMetaNamespaceKey(key)
		c.enqueue(ns)
	}
}

func (c *controller) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], w *watchers) {
	for {
		ns, quit := q.Get()
		if quit {
			return
		}
		if err := c.sync(ctx, w, ns); err != nil && ctx.Err() == nil {
			c.log.Info("recounting quotas failed; will retry", "namespace", ns, "err", err)
			q.AddRateLimited(ns)
		} else {
			q.Forget(ns)
		}
		q.Done(ns)
	}
}
