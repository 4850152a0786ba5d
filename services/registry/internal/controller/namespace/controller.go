// Package namespace is the namespace lifecycle controller: when a Namespace
// is being deleted it deletes everything in it, waits until that is gone,
// and then removes the "kubernetes" finalizer through the finalize
// subresource so the registry can delete the Namespace itself.
package namespace

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// defaultResync re-examines every namespace this often, so a namespace
// whose retries ran out (content held by a finalizer for a long time) is
// picked up again; kube's namespace controller uses the same period.
const defaultResync = 5 * time.Minute

// defaultDeletionDelay is how long after a namespace is marked for
// deletion its content is first deleted, kube's own grace: a create that
// was admitted by a replica whose namespace cache had not yet seen the
// deletion gets time to land, and is then deleted with the rest instead of
// outliving its namespace.
const defaultDeletionDelay = 5 * time.Second

// Options are what the controller needs.
type Options struct {
	// Client reads and finalizes namespaces. Required.
	Client kubernetes.Interface
	// Dynamic deletes the content of a namespace, whatever its type. Required.
	Dynamic dynamic.Interface
	// Discovery lists the served resources; nil means Client.Discovery().
	Discovery discovery.DiscoveryInterface
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
	// Workers is how many namespaces are emptied at once; 0 means 2.
	Workers int
	// DeletionDelay is how long after a namespace's deletion is observed
	// its content is first deleted; 0 means 5s, negative none.
	DeletionDelay time.Duration
	// Retry shapes the backoff while content remains; zero fields take
	// the defaults below.
	Retry worker.Options
}

// Controller empties and finalizes namespaces being deleted.
type Controller struct {
	client    kubernetes.Interface
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	log       *slog.Logger
	informer  cache.SharedIndexInformer
	queue     *worker.Queue[string]
	delay     time.Duration
	now       func() metav1.Time
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Client == nil || o.Dynamic == nil {
		return nil, errors.New("namespace controller: Client and Dynamic are required")
	}
	if o.Discovery == nil {
		o.Discovery = o.Client.Discovery()
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	retry := o.Retry
	retry.Name = "namespace"
	retry.Workers = o.Workers
	if retry.Workers <= 0 {
		retry.Workers = 2
	}
	if o.DeletionDelay == 0 {
		o.DeletionDelay = defaultDeletionDelay
	}
	if retry.MaxRetries == 0 {
		retry.MaxRetries = 20
	}
	if retry.BaseDelay == 0 {
		retry.BaseDelay = 200 * time.Millisecond
	}
	if retry.MaxDelay == 0 {
		retry.MaxDelay = 30 * time.Second
	}
	c := &Controller{
		client: o.Client, dynamic: o.Dynamic, discovery: o.Discovery, log: o.Log,
		informer: coreinformers.NewNamespaceInformer(o.Client, defaultResync, cache.Indexers{}),
		queue:    worker.New[string](o.Log, retry),
		delay:    max(o.DeletionDelay, 0),
		now:      metav1.Now,
	}
	_, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	})
	return c, err
}

// enqueue queues a namespace once it is being deleted; until then there is
// nothing to do.
func (c *Controller) enqueue(obj any) {
	ns, ok := obj.(*corev1.Namespace)
	if ok && ns.DeletionTimestamp != nil {
		c.queue.AddAfter(ns.Name, c.delay)
	}
}

// Run watches namespaces and works the queue until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	go c.informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.informer.HasSynced) {
		return ctx.Err()
	}
	c.log.Info("namespace controller started")
	c.queue.Run(ctx, c.sync)
	return nil
}

// sync moves one namespace on towards deletion. It reads the namespace live
// rather than from the cache, since acting on a stale copy would either
// finalize too early or fail with a conflict.
func (c *Controller) sync(ctx context.Context, name string) error {
	ns, err := c.client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil {
		return nil
	}
	if !hasFinalizer(ns, corev1.FinalizerKubernetes) {
		return c.deleteFinalized(ctx, ns)
	}
	content := c.deleteContent(ctx, ns.Name)
	ns, err = c.updateStatus(ctx, ns, content)
	if err != nil {
		return err
	}
	if err := content.err(); err != nil {
		return err
	}
	return c.finalize(ctx, ns)
}
