package registry

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// systemNamespaces exist on every fresh server, as on a kube cluster.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// bootstrap creates what a fresh server holds (the system namespaces and
// kube's bootstrap RBAC policy), through the API itself so that defaults,
// validation and admission apply as to any client's objects.
func bootstrap(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{FieldManager: "kubesplit-registry"}
	for _, name := range systemNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, opts); ignoreExists(err) != nil {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	// kube's bootstrap RBAC policy, as kube-apiserver writes it on start:
	// what is missing is created, what an administrator changed is kept.
	roles, bindings := rbacpolicy.Defaults()
	for i := range roles {
		if _, err := client.RbacV1().ClusterRoles().Create(ctx, &roles[i], opts); ignoreExists(err) != nil {
			return fmt.Errorf("create clusterrole %s: %w", roles[i].Name, err)
		}
	}
	for i := range bindings {
		if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &bindings[i], opts); ignoreExists(err) != nil {
			return fmt.Errorf("create clusterrolebinding %s: %w", bindings[i].Name, err)
		}
	}
	return nil
}

// ignoreExists is err, unless it says the object is there already.
func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// startBootstrap creates the system namespaces. Without admission it does
// so before Start returns, so a client can use them at once. With remote
// admission it cannot: the admission service syncs its state through the
// aggregator from this registry, which must serve first, and refuses
// writes until it has; so the namespaces are created in the background,
// retrying until admission answers (run ends the retries).
func (s *Server) startBootstrap(start, run context.Context, cfg Config) error {
	if cfg.Admission.Mutating == nil && cfg.Admission.Validating == nil {
		return bootstrap(start, s.restConfig())
	}
	go func() {
		for {
			err := bootstrap(run, s.restConfig())
			if err == nil || run.Err() != nil {
				return
			}
			slog.Info("registry bootstrap waits for admission", "err", err)
			select {
			case <-run.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return nil
}
