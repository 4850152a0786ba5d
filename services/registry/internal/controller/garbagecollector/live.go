package garbagecollector

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// client is the dynamic client for one object's resource and namespace.
func (c *Controller) client(resource schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return c.dynamic.Resource(resource)
	}
	return c.dynamic.Resource(resource).Namespace(namespace)
}

// getLive reads an object from the API. It returns nil, without error, if
// the object is gone or its name now belongs to another uid: either way
// the object the caller meant no longer exists.
func (c *Controller) getLive(ctx context.Context, resource schema.GroupVersionResource, ref objectRef) (*unstructured.Unstructured, error) {
	obj, err := c.client(resource, ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if obj.GetUID() != ref.UID {
		return nil, nil
	}
	return obj, nil
}

// mutateLive re-reads an object, lets change edit it, and writes it back,
// retrying on a conflict. A whole-object update guarded by resourceVersion
// is used rather than a patch because the write must not land on a newer
// version than the one change looked at. change reports false when there
// is nothing to write; an object that is gone needs nothing. It returns the
// object as last read or written (nil if gone).
func (c *Controller) mutateLive(ctx context.Context, resource schema.GroupVersionResource, ref objectRef,
	change func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj, err := c.getLive(ctx, resource, ref)
		out = obj
		if err != nil || obj == nil {
			return err
		}
		if !change(obj) {
			return nil
		}
		out, err = c.client(resource, ref.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			out = nil
			return nil
		}
		return err
	})
	return out, err
}

// removeOwnerRefs drops the references to the given owner uids.
func (c *Controller) removeOwnerRefs(ctx context.Context, resource schema.GroupVersionResource, ref objectRef, owners []types.UID) error {
	drop := map[types.UID]bool{}
	for _, uid := range owners {
		drop[uid] = true
	}
	_, err := c.mutateLive(ctx, resource, ref, func(obj *unstructured.Unstructured) bool {
		var keep []metav1.OwnerReference
		for _, r := range obj.GetOwnerReferences() {
			if !drop[r.UID] {
				keep = append(keep, r)
			}
		}
		if len(keep) == len(obj.GetOwnerReferences()) {
			return false
		}
		obj.SetOwnerReferences(keep)
		return true
	})
	return err
}

// unblockOwnerRefs clears blockOwnerDeletion on every owner reference and
// returns the object as written (nil if it is gone).
func (c *Controller) unblockOwnerRefs(ctx context.Context, resource schema.GroupVersionResource, ref objectRef) (*unstructured.Unstructured, error) {
	return c.mutateLive(ctx, resource, ref, func(obj *unstructured.Unstructured) bool {
		refs := obj.GetOwnerReferences()
		changed := false
		for i := range refs {
			if blocks(refs[i]) {
				refs[i].BlockOwnerDeletion = new(false)
				changed = true
			}
		}
		obj.SetOwnerReferences(refs)
		return changed
	})
}

// removeFinalizer drops one finalizer; the registry deletes an object
// being deleted once its last finalizer is gone.
func (c *Controller) removeFinalizer(ctx context.Context, resource schema.GroupVersionResource, ref objectRef, finalizer string) error {
	_, err := c.mutateLive(ctx, resource, ref, func(obj *unstructured.Unstructured) bool {
		var keep []string
		for _, f := range obj.GetFinalizers() {
			if f != finalizer {
				keep = append(keep, f)
			}
		}
		if len(keep) == len(obj.GetFinalizers()) {
			return false
		}
		obj.SetFinalizers(keep)
		return true
	})
	return err
}

// deleteLive deletes the object a decision was made on, seen. The delete is
// guarded by uid, so a new object that took the name is never hit, and by
// seen's resourceVersion: an object whose owner references changed since
// (orphaned, adopted) must be looked at again, not deleted. A change to
// anything else does not alter the decision, so the delete is then retried
// on uid alone.
func (c *Controller) deleteLive(ctx context.Context, resource schema.GroupVersionResource, ref objectRef,
	seen *unstructured.Unstructured, policy metav1.DeletionPropagation) error {
	err := c.deleteAt(ctx, resource, ref, seen.GetResourceVersion(), policy)
	if !apierrors.IsConflict(err) || seen.GetResourceVersion() == "" {
		return err
	}
	live, err := c.getLive(ctx, resource, ref)
	if err != nil || live == nil {
		return err
	}
	if !equality.Semantic.DeepEqual(live.GetOwnerReferences(), seen.GetOwnerReferences()) {
		return fmt.Errorf("%w: owners of %s changed since it was examined", worker.ErrPending, ref.Name)
	}
	return c.deleteAt(ctx, resource, ref, "", policy)
}

// deleteAt deletes an object with a propagation policy if it still has
// ref's uid and, unless resourceVersion is empty, that version. An object
// already gone, or replaced by another uid, needs nothing.
func (c *Controller) deleteAt(ctx context.Context, resource schema.GroupVersionResource, ref objectRef,
	resourceVersion string, policy metav1.DeletionPropagation) error {
	uid := ref.UID
	pre := &metav1.Preconditions{UID: &uid}
	if resourceVersion != "" {
		pre.ResourceVersion = &resourceVersion
	}
	err := c.client(resource, ref.Namespace).Delete(ctx, ref.Name, metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: pre})
	if apierrors.IsNotFound(err) || (resourceVersion == "" && apierrors.IsConflict(err)) {
		return nil // gone, or the uid now names another object
	}
	return err
}
