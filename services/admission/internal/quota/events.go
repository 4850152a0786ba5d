package quota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// replenish recounts a namespace's quotas when one of gr's objects there
// goes away or shrinks, so that quota is given back within moments rather
// than at the next resync. Creations are not recounted: admission charged
// them already, and a recount racing an admitted create that is not stored
// yet would hand its headroom out twice.
func (c *controller) replenish(gr schema.GroupResource) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj interface{}) {
			o, okO := oldObj.(runtime.Object)
			n, okN := newObj.(runtime.Object)
			if !okO || !okN || gr == (schema.GroupResource{Resource: "resourcequotas"}) {
				return
			}
			ev := c.evals.of(gr)
			was, errO := ev.Usage(o)
			is, errN := ev.Usage(n)
			if errO != nil || errN != nil || len(increase(was, is)) > 0 {
				c.enqueueFor(n)
			}
		},
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				ns, _, _ := cache.SplitMetaNamespaceKey(d.Key)
				c.enqueueIfQuotas(ns)
				return
			}
			c.enqueueFor(obj)
		},
	}
}

func (c *controller) enqueueFor(obj interface{}) {
	if m, err := meta.Accessor(obj); err == nil {
		c.enqueueIfQuotas(m.GetNamespace())
	}
}

// enqueueIfQuotas recounts ns unless it has no quota to recount.
func (c *controller) enqueueIfQuotas(ns string) {
	if qs, err := c.quotas.cached(ns); err == nil && len(qs) > 0 {
		c.enqueue(ns)
	}
}

// quotaChanges recounts a quota when it is created or its limits change,
// and not on its status updates: admission writes those on every charge.
func (c *controller) quotaChanges() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if q, ok := obj.(*corev1.ResourceQuota); ok {
				c.enqueue(q.Namespace)
			}
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			o, okO := oldObj.(*corev1.ResourceQuota)
			n, okN := newObj.(*corev1.ResourceQuota)
			if okO && okN && (!equal(o.Spec.Hard, n.Spec.Hard) || !equal(n.Spec.Hard, n.Status.Hard) ||
				!equalScopes(o, n)) {
				c.enqueue(n.Namespace)
			}
		},
	}
}

// equalScopes says whether two versions of a quota select the same objects.
func equalScopes(a, b *corev1.ResourceQuota) bool {
	sa, sb := scopeSelectors(a), scopeSelectors(b)
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i].ScopeName != sb[i].ScopeName || sa[i].Operator != sb[i].Operator ||
			len(sa[i].Values) != len(sb[i].Values) {
			return false
		}
		for j := range sa[i].Values {
			if sa[i].Values[j] != sb[i].Values[j] {
				return false
			}
		}
	}
	return true
}
