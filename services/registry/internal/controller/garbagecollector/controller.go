// Package garbagecollector is kube's garbage collector for ownerReferences:
// an object whose owners are all gone is deleted (background deletion); an
// owner deleted in the foreground waits until its dependents have been
// deleted first; an owner deleted with the orphan policy first lets go of
// its dependents. It keeps an ownership graph fed by informers over every
// resource that can be listed, watched and deleted, rediscovered
// periodically so custom resources join as they appear.
package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/apiresource"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// Defaults for Options.
const (
	defaultRediscover  = 30 * time.Second
	defaultSyncTimeout = time.Minute
)

// Options are what the collector needs.
type Options struct {
	// Dynamic reads, watches, updates and deletes objects of any resource.
	// Required.
	Dynamic dynamic.Interface
	// Discovery lists the served resources. Required.
	Discovery discovery.DiscoveryInterface
	// Log receives the collector's logs; nil means slog.Default().
	Log *slog.Logger
	// RediscoverPeriod is how often resources are rediscovered; 0 means 30s.
	RediscoverPeriod time.Duration
	// SyncTimeout bounds the wait for the informers' first lists before
	// the workers start anyway; 0 means one minute. Decisions that need a
	// complete graph (orphaning, finishing a foreground deletion) still
	// wait for it.
	SyncTimeout time.Duration
	// Workers is how many objects are examined at once; 0 means 4.
	Workers int
}

// Controller is the garbage collector.
type Controller struct {
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	log       *slog.Logger
	opts      Options

	graph    *graph
	monitors *monitors
	deleteQ  *worker.Queue[types.UID]
	orphanQ  *worker.Queue[types.UID]

	mu        sync.RWMutex
	resources *apiresource.Set
}

// New builds a collector; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Dynamic == nil || o.Discovery == nil {
		return nil, errors.New("garbage collector: Dynamic and Discovery are required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.RediscoverPeriod <= 0 {
		o.RediscoverPeriod = defaultRediscover
	}
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = defaultSyncTimeout
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	c := &Controller{
		dynamic: o.Dynamic, discovery: o.Discovery, log: o.Log, opts: o,
		graph:     newGraph(),
		deleteQ:   worker.New[types.UID](o.Log, worker.Options{Name: "garbagecollector-delete", Workers: o.Workers}),
		orphanQ:   worker.New[types.UID](o.Log, worker.Options{Name: "garbagecollector-orphan", Workers: 2}),
		resources: apiresource.FromLists(nil),
	}
	c.monitors = newMonitors(o.Dynamic, c.graph, c.enqueue, o.Log)
	return c, nil
}

// enqueue hands a graph change's work to the queues.
func (c *Controller) enqueue(w work) {
	for _, uid := range w.attemptToDelete {
		c.deleteQ.Add(uid)
	}
	for _, uid := range w.attemptToOrphan {
		c.orphanQ.Add(uid)
	}
}

// Run builds the graph and collects garbage until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	defer c.monitors.stopAll()
	if !c.firstDiscovery(ctx) {
		return ctx.Err()
	}
	c.waitForSync(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.log.Info("garbage collector started", "resources", c.monitors.count())

	var wg sync.WaitGroup
	wg.Go(func() { c.rediscoverLoop(ctx) })
	wg.Go(func() { c.deleteQ.Run(ctx, c.attemptToDelete) })
	wg.Go(func() { c.orphanQ.Run(ctx, c.attemptToOrphan) })
	wg.Wait()
	return nil
}

// firstDiscovery retries discovery until it works; without it there is
// nothing to watch. It reports false if ctx ended first.
func (c *Controller) firstDiscovery(ctx context.Context) bool {
	delay := 200 * time.Millisecond
	for {
		err := c.rediscover(ctx)
		if err == nil {
			return true
		}
		c.log.Warn("discovery failed; retrying", "err", err, "after", delay)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
		delay = min(2*delay, c.opts.RediscoverPeriod)
	}
}

// waitForSync waits, at most SyncTimeout, until every informer has
// delivered its first list to the graph, so the first decisions see
// owners that already exist.
func (c *Controller) waitForSync(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.SyncTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !c.monitors.synced() {
		select {
		case <-ctx.Done():
			c.log.Warn("not every informer synced; starting anyway")
			return
		case <-tick.C:
		}
	}
}

// rediscoverLoop picks up resources added or removed since the last look.
func (c *Controller) rediscoverLoop(ctx context.Context) {
	tick := time.NewTicker(c.opts.RediscoverPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := c.rediscover(ctx); err != nil {
				c.log.Warn("rediscovery failed", "err", err)
			}
		}
	}
}

// rediscover refreshes the resource table and the set of informers.
func (c *Controller) rediscover(ctx context.Context) error {
	set, err := apiresource.Discover(ctx, c.discovery)
	if err != nil {
		return err
	}
	for gv, err := range set.Failed {
		c.log.Warn("discovery failed for a group; keeping what was known", "groupVersion", gv, "err", err)
	}
	c.mu.Lock()
	c.resources = set
	c.mu.Unlock()
	c.monitors.update(ctx, set.Filter(collectable), set.GroupFailed)
	return nil
}

// resourceFor resolves the group and kind an owner reference names.
func (c *Controller) resourceFor(gk schema.GroupKind) (apiresource.Resource, bool, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.resources.ForKind(gk)
	return r, ok, c.resources.GroupFailed(gk.Group)
}

// collectable selects the resources whose objects can own or be owned and
// that the collector can act on. Events are left out, as kube does: there
// are many, they churn, and nothing owns them.
func collectable(r apiresource.Resource) bool {
	if r.Resource == "events" && (r.Group == "" || r.Group == "events.k8s.io") {
		return false
	}
	return r.Can("list", "watch", "delete")
}
