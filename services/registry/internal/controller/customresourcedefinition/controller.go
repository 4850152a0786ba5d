// Package customresourcedefinition is the CRD controller kube's
// apiextensions server runs: it accepts a CRD's names when no other CRD of
// its group holds them (NamesAccepted, status.acceptedNames), marks it
// Established so every registry replica serves it, and, when the CRD is
// deleted, deletes every object of its kind before letting the CRD go
// (the customresourcecleanup finalizer, with the Terminating condition).
package customresourcedefinition

import (
	"context"
	"errors"
	"log/slog"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// GVR is the resource of CustomResourceDefinitions.
var GVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// resync re-checks every CRD this often, a safety net.
const resync = 5 * time.Minute

// Options are what the controller needs.
type Options struct {
	// Dynamic reads and writes CRDs and deletes custom objects. Required.
	Dynamic dynamic.Interface
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// Controller keeps CRDs' conditions and cleans up deleted ones.
type Controller struct {
	dyn      dynamic.Interface
	log      *slog.Logger
	informer cache.SharedIndexInformer
	queue    *worker.Queue[string]
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Dynamic == nil {
		return nil, errors.New("customresourcedefinition controller: Dynamic is required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	c := &Controller{
		dyn: o.Dynamic, log: o.Log,
		informer: dynamicinformer.NewFilteredDynamicInformer(o.Dynamic, GVR, metav1.NamespaceAll, resync,
			cache.Indexers{}, nil).Informer(),
		queue: worker.New[string](o.Log, worker.Options{Name: "customresourcedefinition", Workers: 2}),
	}
	if _, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.changed,
		UpdateFunc: func(_, obj any) { c.changed(obj) },
		// A CRD going frees its names for the others of its group.
		DeleteFunc: func(obj any) { c.queueGroup(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run watches CRDs and works the queue until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	go c.informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.informer.HasSynced) {
		return ctx.Err()
	}
	c.log.Info("customresourcedefinition controller started")
	c.queue.Run(ctx, c.sync)
	return nil
}

func (c *Controller) changed(obj any) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c.queue.Add(u.GetName())
	}
}

// queueGroup queues every CRD of a deleted CRD's group.
func (c *Controller) queueGroup(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	c.queue.Add(apiServicesKey)
	gone, err := typed(obj)
	if err != nil {
		return
	}
	for _, crd := range c.all() {
		if crd.Spec.Group == gone.Spec.Group {
			c.queue.Add(crd.Name)
		}
	}
}

// all is every CRD in the cache.
func (c *Controller) all() []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range c.informer.GetStore().List() {
		if crd, err := typed(obj); err == nil {
			out = append(out, crd)
		}
	}
	return out
}

// sync brings one CRD's status in line, or cleans it up when deleted.
func (c *Controller) sync(ctx context.Context, name string) error {
	if name == apiServicesKey {
		return c.syncAPIServices(ctx)
	}
	// Whatever changed may change which group versions are served.
	c.queue.Add(apiServicesKey)
	obj, exists, err := c.informer.GetStore().GetByKey(name)
	if err != nil || !exists {
		return err
	}
	crd, err := typed(obj)
	if err != nil {
		return err
	}
	if crd.DeletionTimestamp != nil {
		return c.cleanup(ctx, crd)
	}
	next := crd.DeepCopy()
	c.acceptNames(next)
	if equalStatus(crd, next) {
		return nil
	}
	return c.updateStatus(ctx, next)
}

// typed decodes a CRD from the informer.
func typed(obj any) (*apiextensionsv1.CustomResourceDefinition, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, errors.New("not an unstructured object")
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	return crd, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd)
}

// updateStatus writes a CRD's status through its status subresource.
func (c *Controller) updateStatus(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return err
	}
	_, err = c.dyn.Resource(GVR).UpdateStatus(ctx, &unstructured.Unstructured{Object: u}, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		// Gone since the cache saw it: nothing left to do.
		return nil
	}
	return err
}
