package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// attemptToOrphan handles an owner deleted with the orphan policy: every
// dependent loses its reference to the owner, and then the owner loses
// the "orphan" finalizer so the registry can delete it.
func (c *Controller) attemptToOrphan(ctx context.Context, uid types.UID) error {
	v, ok := c.graph.view(uid)
	if !ok || !v.observed {
		return nil
	}
	// A dependent an informer has not listed yet would be missed, and
	// then collected as soon as the owner is gone: the opposite of
	// orphaning.
	if !c.monitors.synced() {
		return fmt.Errorf("%w: waiting for informers before orphaning %s", worker.ErrPending, v.ref.Name)
	}
	latest, err := c.getLive(ctx, v.resource, v.ref)
	if err != nil || latest == nil {
		return err
	}
	if latest.GetDeletionTimestamp() == nil || !slices.Contains(latest.GetFinalizers(), metav1.FinalizerOrphanDependents) {
		return nil
	}
	var errs []error
	for _, d := range v.dependents {
		if err := c.removeOwnerRefs(ctx, d.resource, d.ref, []types.UID{uid}); err != nil {
			errs = append(errs, fmt.Errorf("orphaning %s/%s: %w", d.ref.Namespace, d.ref.Name, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	c.log.Info("dependents orphaned; finishing deletion", "object", v.ref, "dependents", len(v.dependents))
	return c.removeFinalizer(ctx, v.resource, v.ref, metav1.FinalizerOrphanDependents)
}
