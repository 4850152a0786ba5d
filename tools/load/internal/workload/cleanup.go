package workload

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cleanup removes what the run created: the ConfigMaps carrying this run's
// LabelRun, and the namespace if the run created it. It deletes the
// ConfigMaps itself even when the namespace goes too, so clean-up does not
// depend on the server's namespace controller, and in a namespace that was
// there before nobody else's objects are touched.
func Cleanup(ctx context.Context, env *Env, createdNamespace bool) error {
	fmt.Fprintf(env.Log, "deleting this run's ConfigMaps from %s\n", env.Namespace)
	var errs []error
	err := env.Client.CoreV1().ConfigMaps(env.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: LabelRun + "=" + env.RunID})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete ConfigMaps labelled %s=%s in %s: %w", LabelRun, env.RunID, env.Namespace, err))
	}
	if createdNamespace {
		fmt.Fprintf(env.Log, "deleting namespace %s\n", env.Namespace)
		err := env.Client.CoreV1().Namespaces().Delete(ctx, env.Namespace, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete namespace %s: %w", env.Namespace, err))
		}
	}
	return errors.Join(errs...)
}
