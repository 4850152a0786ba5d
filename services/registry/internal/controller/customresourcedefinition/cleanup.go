package customresourcedefinition

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// recheck is how soon a CRD whose objects are still being deleted is
// looked at again.
const recheck = 100 * time.Millisecond

// cleanup deletes every object of a deleted CRD's kind, then removes the
// cleanup finalizer so the CRD itself goes, as kube's finalizer
// controller does.
func (c *Controller) cleanup(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if !hasFinalizer(crd) {
		return nil
	}
	if gvr, ok := servedResource(crd); ok {
		remaining, err := c.deleteAll(ctx, crd, gvr)
		if err != nil {
			return c.terminating(ctx, crd, "InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err), err)
		}
		if remaining > 0 {
			if err := c.terminating(ctx, crd, "InstanceDeletionInProgress", "CustomResource deletion is in progress", nil); err != nil {
				return err
			}
			c.queue.AddAfter(crd.Name, recheck)
			return nil
		}
	}
	if err := c.terminating(ctx, crd, "InstanceDeletionCompleted", "removed all instances", nil); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, crd.Name)
}

// servedResource is a version the CRD's objects can be reached at; false
// when it never had its names accepted, and so never had objects.
func servedResource(crd *apiextensionsv1.CustomResourceDefinition) (schema.GroupVersionResource, bool) {
	if crd.Status.AcceptedNames.Plural == "" || !isTrue(crd, apiextensionsv1.NamesAccepted) {
		return schema.GroupVersionResource{}, false
	}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			return schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Status.AcceptedNames.Plural}, true
		}
	}
	return schema.GroupVersionResource{}, false
}

// deleteAll issues a delete for every object left and returns how many
// there were.
func (c *Controller) deleteAll(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, gvr schema.GroupVersionResource) (int, error) {
	list, err := c.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	for _, item := range list.Items {
		res := c.dyn.Resource(gvr)
		var err error
		if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
			err = res.Namespace(item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{})
		} else {
			err = res.Delete(ctx, item.GetName(), metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return 0, err
		}
	}
	return len(list.Items), nil
}

// terminating records the cleanup's progress in the Terminating condition
// and returns cause, so a failure is retried.
func (c *Controller) terminating(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, reason, msg string, cause error) error {
	next := crd.DeepCopy()
	setCondition(next, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating,
		Status: apiextensionsv1.ConditionTrue, Reason: reason, Message: msg})
	if !equalStatus(crd, next) {
		if err := c.updateStatus(ctx, next); err != nil {
			return err
		}
	}
	return cause
}

// removeFinalizer drops the cleanup finalizer from the live CRD.
func (c *Controller) removeFinalizer(ctx context.Context, name string) error {
	res := c.dyn.Resource(GVR)
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return err
	}
	var keep []string
	for _, f := range crd.Finalizers {
		if f != apiextensionsv1.CustomResourceCleanupFinalizer {
			keep = append(keep, f)
		}
	}
	crd.Finalizers = keep
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return err
	}
	_, err = res.Update(ctx, &unstructured.Unstructured{Object: obj}, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func hasFinalizer(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, f := range crd.Finalizers {
		if f == apiextensionsv1.CustomResourceCleanupFinalizer {
			return true
		}
	}
	return false
}
