package registry

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	fcboot "k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	schedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// systemNamespaces exist on every fresh server, as on a kube cluster.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// bootstrap creates what a fresh kube-apiserver holds, through the API
// itself so that defaults, validation and admission apply as to any
// client's objects: the system namespaces, kube's bootstrap RBAC policy
// (users', components' and controllers' roles), the system PriorityClasses
// and API Priority and Fairness's mandatory and suggested configuration.
// What is missing is created; what an administrator changed is kept.
func bootstrap(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{FieldManager: "kubesplit-registry"}
	for _, name := range systemNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := ensure(client.CoreV1().Namespaces().Create(ctx, ns, opts)); err != nil {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	if err := bootstrapRBAC(ctx, client, opts); err != nil {
		return err
	}
	for _, pc := range schedulingv1.SystemPriorityClasses() {
		if err := ensure(client.SchedulingV1().PriorityClasses().Create(ctx, pc, opts)); err != nil {
			return fmt.Errorf("create priorityclass %s: %w", pc.Name, err)
		}
	}
	return bootstrapFlowControl(ctx, client, opts)
}

// bootstrapRBAC writes kube's bootstrap policy (bootstrappolicy), as
// kube-apiserver's RBAC post-start hook does.
func bootstrapRBAC(ctx context.Context, client kubernetes.Interface, opts metav1.CreateOptions) error {
	rbac := client.RbacV1()
	roles := append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...)
	// admin, edit and view hold what their aggregation selects, as kube's
	// aggregation controller leaves them, so that the escalation check,
	// which reads a role's rules, sees what binding it grants.
	effective := rbacpolicy.Aggregate(roles)
	for i := range roles {
		if roles[i].AggregationRule != nil {
			roles[i].Rules = effective[roles[i].Name]
		}
	}
	for _, r := range roles {
		if err := ensure(rbac.ClusterRoles().Create(ctx, &r, opts)); err != nil {
			return fmt.Errorf("create clusterrole %s: %w", r.Name, err)
		}
	}
	for _, b := range append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...) {
		if err := ensure(rbac.ClusterRoleBindings().Create(ctx, &b, opts)); err != nil {
			return fmt.Errorf("create clusterrolebinding %s: %w", b.Name, err)
		}
	}
	for ns, roles := range bootstrappolicy.NamespaceRoles() {
		for _, r := range roles {
			if err := ensure(rbac.Roles(ns).Create(ctx, &r, opts)); err != nil {
				return fmt.Errorf("create role %s/%s: %w", ns, r.Name, err)
			}
		}
	}
	for ns, bindings := range bootstrappolicy.NamespaceRoleBindings() {
		for _, b := range bindings {
			if err := ensure(rbac.RoleBindings(ns).Create(ctx, &b, opts)); err != nil {
				return fmt.Errorf("create rolebinding %s/%s: %w", ns, b.Name, err)
			}
		}
	}
	return nil
}

// bootstrapFlowControl writes API Priority and Fairness's mandatory and
// suggested FlowSchemas and PriorityLevelConfigurations.
func bootstrapFlowControl(ctx context.Context, client kubernetes.Interface, opts metav1.CreateOptions) error {
	fc := client.FlowcontrolV1()
	levels := append(slices.Clone(fcboot.MandatoryPriorityLevelConfigurations), fcboot.SuggestedPriorityLevelConfigurations...)
	for _, pl := range levels {
		if err := ensure(fc.PriorityLevelConfigurations().Create(ctx, pl.DeepCopy(), opts)); err != nil {
			return fmt.Errorf("create prioritylevelconfiguration %s: %w", pl.Name, err)
		}
	}
	schemas := append(slices.Clone(fcboot.MandatoryFlowSchemas), fcboot.SuggestedFlowSchemas...)
	for _, fs := range schemas {
		if err := ensure(fc.FlowSchemas().Create(ctx, fs.DeepCopy(), opts)); err != nil {
			return fmt.Errorf("create flowschema %s: %w", fs.Name, err)
		}
	}
	return nil
}

// ensure is a create's error, unless it says the object is there already.
func ensure[T any](_ T, err error) error {
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
// retrying every bootstrapRetry until admission answers (run ends the
// retries): the stack is ready once they exist, and a refused write costs
// next to nothing.
func (s *Server) startBootstrap(start, run context.Context, cfg Config) error {
	if cfg.Admission.Mutating == nil && cfg.Admission.Validating == nil {
		return bootstrap(start, s.restConfig())
	}
	go func() {
		var last string
		for {
			err := bootstrap(run, s.restConfig())
			if err == nil || run.Err() != nil {
				return
			}
			if err.Error() != last { // once per reason, not per retry
				slog.Info("registry bootstrap waits for admission", "err", err)
				last = err.Error()
			}
			select {
			case <-run.Done():
				return
			case <-time.After(bootstrapRetry):
			}
		}
	}()
	return nil
}

// bootstrapRetry is how often the system namespaces are tried again while
// admission refuses them.
const bootstrapRetry = 200 * time.Millisecond
