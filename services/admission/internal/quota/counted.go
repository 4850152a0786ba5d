package quota

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// counter lists a resource's objects in a namespace for a recount: from an
// informer for the resources quotas usually limit (their deletions also
// trigger a recount), live for the rarer ones, so that no informer waits on
// a resource the server may not serve.
type counter struct {
	watch func(w *watchers) cache.SharedIndexInformer // nil: listed live
	live  func(ctx context.Context, ns string) ([]runtime.Object, error)
}

// counters are the resources the controller can recount.
func counters(client kubernetes.Interface) map[schema.GroupResource]counter {
	return map[schema.GroupResource]counter{
		podsResource:                 {watch: func(w *watchers) cache.SharedIndexInformer { return w.typed.Core().V1().Pods().Informer() }},
		servicesResource:             {watch: func(w *watchers) cache.SharedIndexInformer { return w.typed.Core().V1().Services().Informer() }},
		{Resource: "configmaps"}:     {watch: metadataOnly("configmaps")},
		{Resource: "secrets"}:        {watch: metadataOnly("secrets")},
		{Resource: "resourcequotas"}: {watch: func(w *watchers) cache.SharedIndexInformer { return w.typed.Core().V1().ResourceQuotas().Informer() }},
		pvcsResource: {live: listed(func(ctx context.Context, ns string, o metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().PersistentVolumeClaims(ns).List(ctx, o)
		})},
		{Resource: "replicationcontrollers"}: {live: listed(func(ctx context.Context, ns string, o metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().ReplicationControllers(ns).List(ctx, o)
		})},
		claimsResource: {live: listed(func(ctx context.Context, ns string, o metav1.ListOptions) (runtime.Object, error) {
			return client.ResourceV1().ResourceClaims(ns).List(ctx, o)
		})},
	}
}

// metadataOnly watches a core resource's metadata: it is only counted,
// so its contents (Secrets' above all) have no business in admission's
// memory. Without a metadata client (unit tests) it watches whole objects.
func metadataOnly(resource string) func(w *watchers) cache.SharedIndexInformer {
	gvr := corev1.SchemeGroupVersion.WithResource(resource)
	return func(w *watchers) cache.SharedIndexInformer {
		if w.metadata == nil {
			// A core resource the typed factory always knows.
			inf, _ := w.typed.ForResource(gvr)
			return inf.Informer()
		}
		return w.metadata.ForResource(gvr).Informer()
	}
}

// list is the resource's objects in a namespace, from w's informer or live.
func (c counter) list(ctx context.Context, w *watchers, gr schema.GroupResource, ns string) ([]runtime.Object, error) {
	if c.watch == nil {
		objs, err := c.live(ctx, ns)
		if apierrors.IsNotFound(err) {
			// The server does not serve the resource: nothing to count.
			return nil, nil
		}
		return objs, err
	}
	inf, err := w.informer(gr, c)
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	err = cache.ListAllByNamespace(inf.GetIndexer(), ns, labels.Everything(), func(it interface{}) {
		if obj, ok := it.(runtime.Object); ok {
			out = append(out, obj)
		}
	})
	return out, err
}

// listed reads a namespace's objects with one typed List call.
func listed(list func(ctx context.Context, ns string, opts metav1.ListOptions) (runtime.Object, error)) func(context.Context, string) ([]runtime.Object, error) {
	return func(ctx context.Context, ns string) ([]runtime.Object, error) {
		l, err := list(ctx, ns, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return meta.ExtractList(l)
	}
}
