package registry

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
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
//
// The objects are written in phases, each phase's creates
// bootstrapParallelism at a time (the stack is ready only once all two
// hundred or so exist), a phase only after the one before it is complete:
// the namespaces first (two of them hold roles), then the RBAC policy, the
// PriorityClasses, the priority levels, the FlowSchemas, and the last
// FlowSchema alone, so that the aggregator's readiness check, which finds
// that one, knows everything before it was written.
func bootstrap(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return writeBootstrap(ctx, client)
}

// writeBootstrap is bootstrap through client.
func writeBootstrap(ctx context.Context, client kubernetes.Interface) error {
	opts := metav1.CreateOptions{FieldManager: "kubesplit-registry"}
	levels, schemas := flowControlCreates(client, opts)
	last := len(schemas) - 1
	phases := [][]create{
		namespaceCreates(client, opts), rbacCreates(client, opts), priorityClassCreates(client, opts),
		levels, schemas[:last], schemas[last:],
	}
	for _, p := range phases {
		if err := createAll(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// bootstrapParallelism is how many bootstrap creates are in flight at once.
const bootstrapParallelism = 8

// create is one bootstrap object's creation; what names it in errors.
type create struct {
	what string
	do   func(context.Context) error
}

// createOf is the create of obj through f, where an object already there
// is no error.
func createOf[T any](what string, f func(context.Context, T, metav1.CreateOptions) (T, error), obj T, opts metav1.CreateOptions) create {
	return create{what: what, do: func(ctx context.Context) error {
		err := ensure(f(ctx, obj, opts))
		if err != nil {
			return fmt.Errorf("create %s: %w", what, err)
		}
		return nil
	}}
}

// createAll runs creates, bootstrapParallelism at a time, and returns the
// first error.
func createAll(ctx context.Context, creates []create) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(bootstrapParallelism)
	for _, c := range creates {
		g.Go(func() error { return c.do(ctx) })
	}
	return g.Wait()
}

func namespaceCreates(client kubernetes.Interface, opts metav1.CreateOptions) []create {
	var out []create
	for _, name := range systemNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		out = append(out, createOf("namespace "+name, client.CoreV1().Namespaces().Create, ns, opts))
	}
	return out
}

// rbacCreates are kube's bootstrap policy (bootstrappolicy), as
// kube-apiserver's RBAC post-start hook writes it.
func rbacCreates(client kubernetes.Interface, opts metav1.CreateOptions) []create {
	rbac := client.RbacV1()
	roles := append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...)
	// admin, edit and view hold what their aggregation selects, as kube's
	// aggregation controller leaves them, so that the escalation check,
	// which reads a role's rules, sees what binding it grants.
	effective := rbacpolicy.Aggregate(roles)
	var out []create
	for i := range roles {
		if roles[i].AggregationRule != nil {
			roles[i].Rules = effective[roles[i].Name]
		}
		out = append(out, createOf("clusterrole "+roles[i].Name, rbac.ClusterRoles().Create, &roles[i], opts))
	}
	bindings := append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...)
	for i := range bindings {
		out = append(out, createOf("clusterrolebinding "+bindings[i].Name, rbac.ClusterRoleBindings().Create, &bindings[i], opts))
	}
	for ns, roles := range bootstrappolicy.NamespaceRoles() {
		for i := range roles {
			out = append(out, createOf("role "+ns+"/"+roles[i].Name, rbac.Roles(ns).Create, &roles[i], opts))
		}
	}
	for ns, bindings := range bootstrappolicy.NamespaceRoleBindings() {
		for i := range bindings {
			out = append(out, createOf("rolebinding "+ns+"/"+bindings[i].Name, rbac.RoleBindings(ns).Create, &bindings[i], opts))
		}
	}
	return out
}

func priorityClassCreates(client kubernetes.Interface, opts metav1.CreateOptions) []create {
	var out []create
	for _, pc := range schedulingv1.SystemPriorityClasses() {
		out = append(out, createOf("priorityclass "+pc.Name, client.SchedulingV1().PriorityClasses().Create, pc, opts))
	}
	return out
}

// flowControlCreates are API Priority and Fairness's mandatory and
// suggested PriorityLevelConfigurations and FlowSchemas, in kube's order.
func flowControlCreates(client kubernetes.Interface, opts metav1.CreateOptions) (levels, schemas []create) {
	fc := client.FlowcontrolV1()
	for _, pl := range slices.Concat(fcboot.MandatoryPriorityLevelConfigurations, fcboot.SuggestedPriorityLevelConfigurations) {
		levels = append(levels, createOf("prioritylevelconfiguration "+pl.Name, fc.PriorityLevelConfigurations().Create, pl.DeepCopy(), opts))
	}
	for _, fs := range slices.Concat(fcboot.MandatoryFlowSchemas, fcboot.SuggestedFlowSchemas) {
		schemas = append(schemas, createOf("flowschema "+fs.Name, fc.FlowSchemas().Create, fs.DeepCopy(), opts))
	}
	return levels, schemas
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
