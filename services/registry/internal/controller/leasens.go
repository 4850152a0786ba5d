package controller

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// maxEnsureDelay caps the backoff while the API is not yet reachable.
const maxEnsureDelay = 10 * time.Second

// ensureNamespace creates the lease namespace if it is missing, since a
// Lease cannot be created in a namespace that does not exist. It retries
// while the API is unreachable (the registry may still be starting) and
// gives up, logging, on a definite refusal such as Forbidden; it returns
// early only when ctx ends.
func ensureNamespace(ctx context.Context, c typedcorev1.NamespacesGetter, name string, delay time.Duration, log *slog.Logger) {
	for {
		err := createNamespace(ctx, c, name)
		if err == nil {
			return
		}
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			log.Warn("cannot create lease namespace; leases may fail", "namespace", name, "err", err)
			return
		}
		log.Info("lease namespace not ready; retrying", "namespace", name, "err", err, "after", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, maxEnsureDelay)
	}
}

// createNamespace makes sure the namespace exists.
func createNamespace(ctx context.Context, c typedcorev1.NamespacesGetter, name string) error {
	_, err := c.Namespaces().Get(ctx, name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err = c.Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
