// Package serviceaccount is the service account controller: every
// namespace that is not being deleted has a ServiceAccount named "default",
// created when the namespace appears and again whenever it is deleted.
package serviceaccount

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// DefaultName is the service account every namespace gets.
const DefaultName = "default"

// resync re-checks every namespace this often, a safety net for a create
// whose retries ran out.
const resync = 5 * time.Minute

// Options are what the controller needs.
type Options struct {
	// Client watches namespaces and creates service accounts. Required.
	Client kubernetes.Interface
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// Controller keeps a "default" ServiceAccount in every live namespace.
type Controller struct {
	client     kubernetes.Interface
	log        *slog.Logger
	namespaces cache.SharedIndexInformer
	accounts   cache.SharedIndexInformer
	nsLister   corelisters.NamespaceLister
	saLister   corelisters.ServiceAccountLister
	queue      *worker.Queue[string]
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Client == nil {
		return nil, errors.New("serviceaccount controller: Client is required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	c := &Controller{
		client:     o.Client,
		log:        o.Log,
		namespaces: coreinformers.NewNamespaceInformer(o.Client, resync, cache.Indexers{}),
		// Only the accounts this controller makes need caching.
		accounts: coreinformers.NewFilteredServiceAccountInformer(o.Client, metav1.NamespaceAll, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", DefaultName).String()
			}),
		queue: worker.New[string](o.Log, worker.Options{Name: "serviceaccount", Workers: 2}),
	}
	c.nsLister = corelisters.NewNamespaceLister(c.namespaces.GetIndexer())
	c.saLister = corelisters.NewServiceAccountLister(c.accounts.GetIndexer())
	if _, err := c.namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.namespaceChanged,
		UpdateFunc: func(_, obj any) { c.namespaceChanged(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := c.accounts.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: c.accountDeleted,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// namespaceChanged queues a namespace that may lack its account.
func (c *Controller) namespaceChanged(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

// accountDeleted queues the namespace of a deleted default account, so it
// is recreated.
func (c *Controller) accountDeleted(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if sa, ok := obj.(*corev1.ServiceAccount); ok && sa.Name == DefaultName {
		c.queue.Add(sa.Namespace)
	}
}

// Run watches namespaces and accounts and works the queue until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	go c.namespaces.RunWithContext(ctx)
	go c.accounts.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.namespaces.HasSynced, c.accounts.HasSynced) {
		return ctx.Err()
	}
	c.log.Info("serviceaccount controller started")
	c.queue.Run(ctx, c.sync)
	return nil
}

// sync creates the namespace's default account if it is missing.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	ns, err := c.nsLister.Get(namespace)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if terminating(ns) {
		return nil
	}
	if _, err := c.saLister.ServiceAccounts(namespace).Get(DefaultName); err == nil {
		return nil
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: namespace}}
	_, err = c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{})
	switch {
	case err == nil:
		c.log.Info("created service account", "namespace", namespace, "name", DefaultName)
		return nil
	case apierrors.IsAlreadyExists(err),
		// The cache lagged behind the namespace's deletion.
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause),
		apierrors.IsNotFound(err):
		return nil
	}
	return err
}

// terminating reports whether the namespace is being deleted, by either of
// the marks the registry sets.
func terminating(ns *corev1.Namespace) bool {
	return ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating
}
