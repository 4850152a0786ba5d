package quota

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
		gr, ok := groupResourceOf(name)
		if _, listed := c.counted[gr]; !ok || !listed {
			n, err := c.genericUsage(ctx, q, name, gr, ok)
			if err != nil {
				return nil, err
			}
			used[name] = n
			continue
		}
		byResource[gr] = append(byResource[gr], name)
		used[name] = *resource.NewQuantity(0, resource.DecimalSI)
	}
	now := time.Now()
	for gr, limited := range byResource {
		objs, err := c.counted[gr].list(ctx, w, gr, q.Namespace)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			in, err := inScope(q, obj)
			if err != nil {
				return nil, err
			}
			if in {
				used = add(used, mask(usage(gr, obj, now), limited))
			}
		}
	}
	return used, nil
}

// genericUsage is the usage of a resource the controller has no counter
// for: a generic count listed live, or else the usage admission charged.
func (c *controller) genericUsage(ctx context.Context, q *corev1.ResourceQuota, name corev1.ResourceName, gr schema.GroupResource, known bool) (resource.Quantity, error) {
	if known && len(scopeSelectors(q)) == 0 {
		n, counted, err := c.generic.count(ctx, gr, q.Namespace)
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
