package namespace

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hasFinalizer reports whether spec.finalizers holds f.
func hasFinalizer(ns *corev1.Namespace, f corev1.FinalizerName) bool {
	return slices.Contains(ns.Spec.Finalizers, f)
}

// finalize removes the "kubernetes" finalizer through the finalize
// subresource, which takes the whole Namespace, as kube's does. The
// registry deletes the namespace once no finalizer of either kind is left.
func (c *Controller) finalize(ctx context.Context, ns *corev1.Namespace) error {
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool {
		return f == corev1.FinalizerKubernetes
	})
	_, err := c.client.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		c.log.Info("namespace finalized", "namespace", ns.Name)
	}
	return err
}

// deleteFinalized handles a namespace being deleted that no longer needs
// this controller. If no finalizer at all is left it should already be
// gone; deleting it again (guarded by its uid) makes sure, as kube does for
// a namespace finalized before its deletion was observed.
func (c *Controller) deleteFinalized(ctx context.Context, ns *corev1.Namespace) error {
	if len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 {
		return nil
	}
	err := c.client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &ns.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
