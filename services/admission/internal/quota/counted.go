package quota

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// counter lists a resource's objects in a namespace for a recount: from an
// informer for the resources quotas usually limit (their deletions also
// trigger a recount), live for the rarer ones, so that the shared informer
// factory never waits on a resource the server may not serve.
type counter struct {
	informer cache.SharedIndexInformer // nil: listed live
	live     func(ctx context.Context, ns string) ([]runtime.Object, error)
}

// counters are the resources the controller can recount.
func counters(f informers.SharedInformerFactory, md metadatainformer.SharedInformerFactory, client kubernetes.Interface) map[schema.GroupResource]counter {
	core := f.Core().V1()
	configMaps, secrets := core.ConfigMaps().Informer(), core.Secrets().Informer()
	if md != nil {
		// Only counted: their metadata is enough, and Secrets' contents
		// have no business in admission's memory.
		configMaps = md.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps")).Informer()
		secrets = md.ForResource(corev1.SchemeGroupVersion.WithResource("secrets")).Informer()
	}
	return map[schema.GroupResource]counter{
		podsResource:                         {informer: core.Pods().Informer()},
		servicesResource:                     {informer: core.Services().Informer()},
		{Resource: "configmaps"}:             {informer: configMaps},
		{Resource: "secrets"}:                {informer: secrets},
		{Resource: "resourcequotas"}:         {informer: core.ResourceQuotas().Informer()},
		pvcsResource:                         {live: listPVCs(client)},
		{Resource: "replicationcontrollers"}: {live: listRCs(client)},
	}
}

// list is the resource's objects in a namespace.
func (c counter) list(ctx context.Context, ns string) ([]runtime.Object, error) {
	if c.informer == nil {
		objs, err := c.live(ctx, ns)
		if apierrors.IsNotFound(err) {
			// The server does not serve the resource: nothing to count.
			return nil, nil
		}
		return objs, err
	}
	var out []runtime.Object
	err := cache.ListAllByNamespace(c.informer.GetIndexer(), ns, labels.Everything(), func(it interface{}) {
		if obj, ok := it.(runtime.Object); ok {
			out = append(out, obj)
		}
	})
	return out, err
}

func listPVCs(client kubernetes.Interface) func(context.Context, string) ([]runtime.Object, error) {
	return listLive(func(ctx context.Context, ns string) ([]corev1.PersistentVolumeClaim, error) {
		l, err := client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

func listRCs(client kubernetes.Interface) func(context.Context, string) ([]runtime.Object, error) {
	return listLive(func(ctx context.Context, ns string) ([]corev1.ReplicationController, error) {
		l, err := client.CoreV1().ReplicationControllers(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

// listLive turns a typed list call into one of runtime.Objects.
func listLive[T any, PT interface {
	*T
	runtime.Object
}](list func(ctx context.Context, ns string) ([]T, error)) func(context.Context, string) ([]runtime.Object, error) {
	return func(ctx context.Context, ns string) ([]runtime.Object, error) {
		items, err := list(ctx, ns)
		if err != nil {
			return nil, err
		}
		out := make([]runtime.Object, len(items))
		for i := range items {
			out[i] = PT(&items[i])
		}
		return out, nil
	}
}
