package quota

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/quota/v1/generic"
)

// sync recounts every quota of a namespace and writes the status of those
// that changed. A conflict (admission charged meanwhile) is an error, so
// the namespace is recounted again.
func (c *controller) sync(ctx context.Context, w *watchers, ns string) error {
	quotas, err := c.quotas.cached(ns)
	if err != nil {
		return err
	}
	var errs []error
	for _, q := range quotas {
		if err := c.syncOne(ctx, w, q); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d quota(s) not updated, first: %w", len(errs), errs[0])
	}
	return nil
}

func (c *controller) syncOne(ctx context.Context, w *watchers, q *corev1.ResourceQuota) error {
	used, err := c.recount(ctx, w, q)
	if err != nil {
		return err
	}
	hard := add(q.Spec.Hard, nil)
	if equal(q.Status.Hard, hard) && equal(q.Status.Used, used) {
		return nil
	}
	q.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	_, err = c.quotas.updateStatus(ctx, q)
	if apierrors.IsConflict(err) {
		// Read it live so the retry starts from the current version
		// rather than wait for the informer.
		_, _ = c.quotas.get(ctx, q.Namespace, q.Name)
	}
	return err
}

// recount adds up what the objects in the quota's namespace and scope use
// of each resource the quota limits. A resource whose objects this
// controller has no counter for is listed live (generic counts), or, if it
// cannot be, keeps the usage admission charged.
func (c *controller) recount(ctx context.Context, w *watchers, q *corev1.ResourceQuota) (corev1.ResourceList, error) {
	byResource := map[schema.GroupResource][]corev1.ResourceName{}
	used := corev1.ResourceList{}
	for _, name := range names(q.Spec.Hard) {
		grs := c.evals.covering(name)
		if !c.countsAll(grs) {
			n, err := c.genericUsage(ctx, q, name, grs)
			if err != nil {
				return nil, err
			}
			used[name] = n
			continue
		}
		for _, gr := range grs {
			byResource[gr] = append(byResource[gr], name)
		}
		used[name] = *resource.NewQuantity(0, resource.DecimalSI)
	}
	for gr, limited := range byResource {
		u, err := c.usageOf(ctx, w, q, gr)
		if err != nil {
			return nil, err
		}
		used = add(used, mask(u, limited))
	}
	return used, nil
}

// countsAll says whether the controller has a counter for each of grs.
func (c *controller) countsAll(grs []schema.GroupResource) bool {
	for _, gr := range grs {
		if _, ok := c.counted[gr]; !ok {
			return false
		}
	}
	return len(grs) > 0
}

// usageOf is what gr's objects in the quota's namespace and scope use.
func (c *controller) usageOf(ctx context.Context, w *watchers, q *corev1.ResourceQuota, gr schema.GroupResource) (corev1.ResourceList, error) {
	objs, err := c.counted[gr].list(ctx, w, gr, q.Namespace)
	if err != nil {
		return nil, err
	}
	ev := c.evals.of(gr)
	used := corev1.ResourceList{}
	for _, obj := range objs {
		in, err := inScope(q, ev, obj)
		if err != nil {
			return nil, err
		}
		if !in {
			continue
		}
		u, err := ev.Usage(obj)
		if err != nil {
			return nil, err
		}
		used = add(used, u)
	}
	return used, nil
}

// genericUsage is the usage of a resource the controller has no counter
// for: a generic count listed live, or else the usage admission charged.
func (c *controller) genericUsage(ctx context.Context, q *corev1.ResourceQuota, name corev1.ResourceName, grs []schema.GroupResource) (resource.Quantity, error) {
	if len(grs) == 1 && name == generic.ObjectCountQuotaResourceNameFor(grs[0]) && len(scopeSelectors(q)) == 0 {
		n, counted, err := c.generic.count(ctx, grs[0], q.Namespace)
		if err != nil || counted {
			return *resource.NewQuantity(n, resource.DecimalSI), err
		}
	}
	return keep(q.Status.Used, name), nil
}

// keep is the usage recorded for name, zero if none.
func keep(used corev1.ResourceList, name corev1.ResourceName) resource.Quantity {
	if q, ok := used[name]; ok {
		return q.DeepCopy()
	}
	return *resource.NewQuantity(0, resource.DecimalSI)
}
