// Package pernamespace is the loop shared by the controllers that keep one
// named object in every namespace (the "default" ServiceAccount, the
// kube-root-ca.crt ConfigMap): a namespace that appears or changes, or
// whose object is deleted or edited, is synced, and a namespace being
// deleted is left alone.
package pernamespace

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// Resync re-checks every namespace this often, a safety net for a sync
// whose retries ran out.
const Resync = 5 * time.Minute

// SyncFunc makes the object in namespace right. existing is the cached
// object, nil when there is none; it must not be modified.
type SyncFunc func(ctx context.Context, namespace string, existing any) error

// Options say which object is kept and how.
type Options struct {
	// Name names the controller in logs and its queue.
	Name string
	// Client watches namespaces. Required.
	Client kubernetes.Interface
	// NewInformer makes an informer of the kept kind across namespaces
	// (client-go's NewFiltered<Kind>Informer); New narrows it to
	// ObjectName with a field selector. Required.
	NewInformer NewInformer
	// ObjectName is the name of the object kept in every namespace.
	ObjectName string
	// Sync is called for each live namespace to sync. Required.
	Sync SyncFunc
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// NewInformer is the shape of client-go's NewFiltered<Kind>Informer.
type NewInformer func(client kubernetes.Interface, namespace string, resync time.Duration,
	indexers cache.Indexers, tweak internalinterfaces.TweakListOptionsFunc) cache.SharedIndexInformer

// Controller runs Sync for every live namespace.
type Controller struct {
	opts       Options
	objects    cache.SharedIndexInformer
	namespaces cache.SharedIndexInformer
	nsLister   corelisters.NamespaceLister
	queue      *worker.Queue[string]
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Client == nil || o.NewInformer == nil || o.Sync == nil || o.ObjectName == "" {
		return nil, errors.New(o.Name + " controller: Client, NewInformer, ObjectName and Sync are required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	c := &Controller{
		opts:       o,
		namespaces: coreinformers.NewNamespaceInformer(o.Client, Resync, cache.Indexers{}),
		// Only the kept objects need caching.
		objects: o.NewInformer(o.Client, metav1.NamespaceAll, Resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", o.ObjectName).String()
			}),
		queue: worker.New[string](o.Log, worker.Options{Name: o.Name, Workers: 2}),
	}
	c.nsLister = corelisters.NewNamespaceLister(c.namespaces.GetIndexer())
	if _, err := c.namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.namespaceChanged,
		UpdateFunc: func(_, obj any) { c.namespaceChanged(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := c.objects.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { c.objectChanged(obj) },
		DeleteFunc: c.objectChanged,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// namespaceChanged queues a namespace that may lack its object.
func (c *Controller) namespaceChanged(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

// objectChanged queues the namespace of a kept object that was deleted
// or edited, so it is put back.
func (c *Controller) objectChanged(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, err := meta.Accessor(obj)
	if err == nil && m.GetName() == c.opts.ObjectName {
		c.queue.Add(m.GetNamespace())
	}
}

// Run watches namespaces and the objects and works the queue until ctx
// ends.
func (c *Controller) Run(ctx context.Context) error {
	go c.namespaces.RunWithContext(ctx)
	go c.objects.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.namespaces.HasSynced, c.objects.HasSynced) {
		return ctx.Err()
	}
	c.opts.Log.Info(c.opts.Name + " controller started")
	c.queue.Run(ctx, c.sync)
	return nil
}

// NamespaceIndexer is the namespaces' cache, for tests that set up a
// namespace without running the informer.
func (c *Controller) NamespaceIndexer() cache.Indexer { return c.namespaces.GetIndexer() }

// Sync syncs one namespace now, as a queued key would be.
func (c *Controller) Sync(ctx context.Context, namespace string) error { return c.sync(ctx, namespace) }

// sync calls Sync for a namespace that exists and is not being deleted.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	ns, err := c.nsLister.Get(namespace)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if Terminating(ns) {
		return nil
	}
	existing, found, err := c.objects.GetIndexer().GetByKey(namespace + "/" + c.opts.ObjectName)
	if err != nil {
		return err
	}
	if !found {
		existing = nil
	}
	err = c.opts.Sync(ctx, namespace, existing)
	switch {
	case apierrors.IsAlreadyExists(err),
		// The cache lagged behind the namespace's deletion.
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause),
		apierrors.IsNotFound(err):
		return nil
	}
	return err
}

// Terminating reports whether the namespace is being deleted, by either
// of the marks the registry sets.
func Terminating(ns *corev1.Namespace) bool {
	return ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating
}
