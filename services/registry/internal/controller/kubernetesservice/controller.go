// Package kubernetesservice keeps the Service default/kubernetes and its
// Endpoints and EndpointSlice, as kube-apiserver's kubernetes service
// controller and lease endpoint reconciler do, listing every API server
// replica (aggregator) whose endpoint lease has not lapsed.
//
// In kube-apiserver every replica runs the reconciler and writes the
// endpoints itself; here the aggregators only keep their leases (package
// endpointlease) and one registry replica, holding this controller's
// lease, writes the objects.
package kubernetesservice

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	"k8s.io/client-go/kubernetes"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/endpointlease"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// Defaults of Options, kube-apiserver's.
const (
	// DefaultServicePort is the Service's port (--kubernetes-service-port
	// is not a flag of kube's; it is 443).
	DefaultServicePort = 443
	// DefaultInterval is kube's endpoint reconcile interval: the objects
	// are put right at least this often, even with no lease changing.
	DefaultInterval = 10 * time.Second
)

// key is the one thing queued: all three objects are synced together.
const key = endpointlease.ServiceName

// Options are what the controller needs.
type Options struct {
	// Client watches the leases and writes the objects. Required.
	Client kubernetes.Interface
	// ServiceIP is the Service's cluster IP, the first address of the
	// primary service range, which the allocator keeps for it. Required.
	ServiceIP netip.Addr
	// ServicePort is the Service's port; zero means 443.
	ServicePort int32
	// Interval is how often the objects are put right regardless; zero
	// means 10s.
	Interval time.Duration
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// Controller keeps the kubernetes Service and its endpoints.
type Controller struct {
	opts   Options
	client kubernetes.Interface
	log    *slog.Logger
	leases cache.SharedIndexInformer
	lister coordinationlisters.LeaseLister
	queue  *worker.Queue[string]
	now    func() time.Time
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Client == nil || !o.ServiceIP.IsValid() {
		return nil, errors.New("kubernetes service controller: Client and ServiceIP are required")
	}
	if o.ServicePort == 0 {
		o.ServicePort = DefaultServicePort
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	c := &Controller{
		opts: o, client: o.Client, log: o.Log, now: time.Now,
		leases: coordinationinformers.NewFilteredLeaseInformer(o.Client, endpointlease.Namespace, 0, cache.Indexers{},
			func(lo *metav1.ListOptions) { lo.LabelSelector = endpointlease.Selector().String() }),
		queue: worker.New[string](o.Log, worker.Options{Name: "kubernetes-service"}),
	}
	c.lister = coordinationlisters.NewLeaseLister(c.leases.GetIndexer())
	requeue := func(any) { c.queue.Add(key) }
	if _, err := c.leases.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: requeue, UpdateFunc: func(_, obj any) { requeue(obj) }, DeleteFunc: requeue,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run watches the leases and keeps the objects until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	go c.leases.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.leases.HasSynced) {
		return ctx.Err()
	}
	c.log.Info("kubernetes service controller started", "serviceIP", c.opts.ServiceIP)
	go func() {
		t := time.NewTicker(c.opts.Interval)
		defer t.Stop()
		for {
			c.queue.Add(key)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	c.queue.Run(ctx, c.sync)
	return nil
}

// sync writes the Service, Endpoints and EndpointSlice for the live
// leases, and comes back when the first of them lapses.
func (c *Controller) sync(ctx context.Context, _ string) error {
	all, err := c.lister.Leases(endpointlease.Namespace).List(endpointlease.Selector())
	if err != nil {
		return err
	}
	now := c.now()
	live, next := liveEndpoints(all, now, c.log)
	if !next.IsZero() {
		// A little after the lapse, so the lease is past it by then.
		c.queue.AddAfter(key, next.Sub(now)+100*time.Millisecond)
	}
	port, addrs := servedBy(live, c.log)
	if err := c.ensureService(ctx, port); err != nil {
		return err
	}
	return c.ensureEndpoints(ctx, port, addrs)
}
