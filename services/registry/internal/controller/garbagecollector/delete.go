package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// errInvalidOwner marks an owner reference that can never resolve (a
// cluster-scoped object naming a namespaced owner); retrying is pointless.
var errInvalidOwner = errors.New("cluster-scoped object refers to a namespaced owner")

// attemptToDelete examines one object: a dependent whose owners may be
// gone, or an owner in foreground deletion whose dependents may be.
func (c *Controller) attemptToDelete(ctx context.Context, uid types.UID) error {
	v, ok := c.graph.view(uid)
	if !ok || !v.observed {
		return nil
	}
	latest, err := c.getLive(ctx, v.resource, v.ref)
	if err != nil || latest == nil {
		// Gone: the informer will report it and the graph catch up.
		return err
	}
	if isForeground(latest) {
		return c.finishForeground(ctx, v)
	}
	if latest.GetDeletionTimestamp() != nil {
		return nil // already on its way out; its finalizers decide when
	}
	if len(latest.GetOwnerReferences()) == 0 {
		return nil
	}
	verdict, err := c.classify(ctx, latest)
	if errors.Is(err, errInvalidOwner) {
		c.log.Warn("not collecting object with an invalid owner reference", "object", v.ref, "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	act := decide(verdict, len(v.dependents) > 0, v.anyDependentForeground(), latest.GetFinalizers())
	return c.apply(ctx, v, latest, act)
}

// apply carries out a decision made on latest, the object as last read.
func (c *Controller) apply(ctx context.Context, v view, latest *unstructured.Unstructured, act action) error {
	switch {
	case len(act.removeOwners) > 0:
		c.log.Info("removing references to owners that are gone or deleting", "object", v.ref, "owners", act.removeOwners, "why", act.why)
		return c.removeOwnerRefs(ctx, v.resource, v.ref, act.removeOwners)
	case act.delete:
		if act.unblock {
			unblocked, err := c.unblockOwnerRefs(ctx, v.resource, v.ref)
			if err != nil || unblocked == nil {
				return err
			}
			latest = unblocked
		}
		c.log.Info("deleting dependent", "object", v.ref, "propagation", act.policy, "why", act.why)
		return c.deleteLive(ctx, v.resource, v.ref, latest, act.policy)
	}
	return nil
}

// finishForeground moves an owner in foreground deletion on: while
// dependents block it, make sure each is being dealt with; once none does,
// remove the finalizer so the registry can delete the owner.
func (c *Controller) finishForeground(ctx context.Context, v view) error {
	// An informer that has not listed yet may hide a blocking dependent.
	if !c.monitors.synced() {
		return fmt.Errorf("%w: waiting for informers before finishing %s", worker.ErrPending, v.ref.Name)
	}
	blocking := v.blockingDependents()
	if len(blocking) == 0 {
		c.log.Info("dependents gone; finishing foreground deletion", "object", v.ref)
		return c.removeFinalizer(ctx, v.resource, v.ref, metav1.FinalizerDeleteDependents)
	}
	for _, d := range blocking {
		if !d.foreground {
			c.deleteQ.Add(d.ref.UID)
		}
	}
	// Nothing to retry: each dependent that leaves requeues the owner.
	return nil
}

// classify looks up every owner of obj.
func (c *Controller) classify(ctx context.Context, obj *unstructured.Unstructured) (verdict, error) {
	var v verdict
	for _, ref := range obj.GetOwnerReferences() {
		s, err := c.ownerState(ctx, ref, obj.GetNamespace())
		if err != nil {
			return verdict{}, err
		}
		v.add(ref, s)
	}
	return v, nil
}

// ownerState asks the API about one owner. As in kube, the graph is not
// trusted for this: an informer may not have seen a new owner yet.
func (c *Controller) ownerState(ctx context.Context, ref metav1.OwnerReference, namespace string) (ownerState, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return solid, fmt.Errorf("owner %s: %w", ref.Name, err)
	}
	r, ok, failed := c.resourceFor(gv.WithKind(ref.Kind).GroupKind())
	if !ok {
		// Unknown kinds are retried, never read as absent: the kind may be
		// a CRD not discovered yet or a group whose discovery failed.
		return solid, fmt.Errorf("owner %s: kind %s not served (discovery failed: %v)", ref.Name, gv.WithKind(ref.Kind), failed)
	}
	if !r.Namespaced {
		namespace = ""
	} else if namespace == "" {
		return solid, fmt.Errorf("%w: %s %s", errInvalidOwner, ref.Kind, ref.Name)
	}
	owner, err := c.getLive(ctx, r.GroupVersionResource, objectRef{Namespace: namespace, Name: ref.Name, UID: ref.UID})
	switch {
	case err != nil:
		return solid, err
	case owner == nil:
		return dangling, nil
	case isForeground(owner):
		return waiting, nil
	}
	return solid, nil
}

// isForeground reports whether an object is being deleted in the
// foreground.
func isForeground(obj *unstructured.Unstructured) bool {
	return obj.GetDeletionTimestamp() != nil && slices.Contains(obj.GetFinalizers(), metav1.FinalizerDeleteDependents)
}
