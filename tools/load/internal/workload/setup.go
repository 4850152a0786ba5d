package workload

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// seedParallelism bounds the concurrent creates of the seeding phase: enough
// to make a large seed quick, few enough not to look like the load itself.
const seedParallelism = 16

// Fixture is what Setup put in place, and so what Cleanup must remove.
type Fixture struct {
	// NamespaceReady is true once the namespace is known to exist, so
	// objects may have been created in it.
	NamespaceReady bool
	// CreatedNamespace is true when the namespace did not exist before.
	CreatedNamespace bool
	// Seeded are the ConfigMaps created up front, as the server returned
	// them (with their resourceVersions).
	Seeded []*corev1.ConfigMap
}

// Setup makes sure the namespace exists and seeds it with objects
// ConfigMaps. It returns the fixture even on error, so that whatever was
// created can still be cleaned up.
func Setup(ctx context.Context, env *Env, objects int) (*Fixture, error) {
	fx := &Fixture{}
	created, err := ensureNamespace(ctx, env)
	fx.CreatedNamespace = created
	if err != nil {
		return fx, err
	}
	fx.NamespaceReady = true
	if objects > 0 {
		fmt.Fprintf(env.Log, "seeding %d ConfigMaps of %d bytes in %s\n", objects, len(env.payload), env.Namespace)
	}
	fx.Seeded, err = seed(ctx, env, objects)
	return fx, err
}

// ensureNamespace creates the namespace unless it exists, and reports whether
// it did. It looks first, because a caller allowed to use a namespace may
// not be allowed to create one.
func ensureNamespace(ctx context.Context, env *Env) (bool, error) {
	nsClient := env.Client.CoreV1().Namespaces()
	ns, err := nsClient.Get(ctx, env.Namespace, metav1.GetOptions{})
	switch {
	case err == nil && ns.DeletionTimestamp != nil:
		return false, fmt.Errorf("namespace %s is being deleted", env.Namespace)
	case err == nil:
		return false, nil
	case !apierrors.IsNotFound(err):
		return false, fmt.Errorf("get namespace %s: %w", env.Namespace, err)
	}
	ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   env.Namespace,
		Labels: map[string]string{LabelRun: env.RunID},
	}}
	if _, err := nsClient.Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return false, fmt.Errorf("create namespace %s: %w", env.Namespace, err)
	}
	fmt.Fprintf(env.Log, "created namespace %s\n", env.Namespace)
	return true, nil
}

// seed creates n ConfigMaps named seed-<run>-<i> and returns them in order.
func seed(ctx context.Context, env *Env, n int) ([]*corev1.ConfigMap, error) {
	out := make([]*corev1.ConfigMap, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, seedParallelism) {
		wg.Go(func() {
			for i := range next {
				cm := env.configMap(fmt.Sprintf("seed-%s-%d", env.RunID, i))
				out[i], errs[i] = env.Client.CoreV1().ConfigMaps(env.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("seeding: %w", err)
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("seed ConfigMap %d of %d: %w", i+1, n, err)
		}
	}
	return out, nil
}
