package registry

import (
	"context"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

// A fresh registry holds what a fresh kube-apiserver does: kube's
// bootstrap RBAC for users, components and controllers (cluster-wide and
// in kube-system), the system PriorityClasses, and API Priority and
// Fairness's configuration.
func TestBootstrapObjectsAreKubes(t *testing.T) {
	srv, err := Start(context.Background(), Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: t.TempDir(),
		InsecureAllowUnauthenticated: true, DisableControllers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL()})
	ctx, get := context.Background(), metav1.GetOptions{}
	for _, check := range []struct {
		what string
		err  func() error
	}{
		{"clusterrole system:kube-scheduler", func() error { _, err := c.RbacV1().ClusterRoles().Get(ctx, "system:kube-scheduler", get); return err }},
		{"clusterrole system:node", func() error { _, err := c.RbacV1().ClusterRoles().Get(ctx, "system:node", get); return err }},
		{"clusterrole system:controller:deployment-controller", func() error {
			_, err := c.RbacV1().ClusterRoles().Get(ctx, "system:controller:deployment-controller", get)
			return err
		}},
		{"clusterrolebinding system:kube-controller-manager", func() error {
			_, err := c.RbacV1().ClusterRoleBindings().Get(ctx, "system:kube-controller-manager", get)
			return err
		}},
		{"role kube-system/extension-apiserver-authentication-reader", func() error {
			_, err := c.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", get)
			return err
		}},
		{"priorityclass system-node-critical", func() error {
			pc, err := c.SchedulingV1().PriorityClasses().Get(ctx, "system-node-critical", get)
			if err == nil && pc.Value != 2000001000 {
				t.Errorf("system-node-critical value %d", pc.Value)
			}
			return err
		}},
		{"clusterrole admin holds its aggregated rules", func() error {
			r, err := c.RbacV1().ClusterRoles().Get(ctx, "admin", get)
			if err == nil && len(r.Rules) < 10 {
				t.Errorf("admin has %d rules, want edit's and view's aggregated into it", len(r.Rules))
			}
			return err
		}},
		{"flowschema exempt", func() error { _, err := c.FlowcontrolV1().FlowSchemas().Get(ctx, "exempt", get); return err }},
		{"flowschema catch-all", func() error { _, err := c.FlowcontrolV1().FlowSchemas().Get(ctx, "catch-all", get); return err }},
		{"prioritylevelconfiguration workload-low", func() error {
			_, err := c.FlowcontrolV1().PriorityLevelConfigurations().Get(ctx, "workload-low", get)
			return err
		}},
	} {
		if err := check.err(); err != nil {
			t.Errorf("%s: %v", check.what, err)
		}
	}
}

// The bootstrap writes in phases: every namespace before any role, and the
// last FlowSchema (global-default, the one the aggregator's readiness
// check finds) after every other object, however many creates run at once.
func TestBootstrapWritesGlobalDefaultLast(t *testing.T) {
	client := fake.NewClientset()
	var mu sync.Mutex
	var order []string
	client.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj := a.(k8stesting.CreateAction).GetObject().(metav1.Object)
		mu.Lock()
		order = append(order, a.GetResource().Resource+"/"+obj.GetName())
		mu.Unlock()
		return false, nil, nil
	})
	if err := writeBootstrap(t.Context(), client); err != nil {
		t.Fatal(err)
	}
	if len(order) < 100 || order[len(order)-1] != "flowschemas/global-default" {
		t.Fatalf("%d creates, the last %q; want global-default last", len(order), order[len(order)-1])
	}
	lastNamespace, firstRole := -1, len(order)
	for i, o := range order {
		if strings.HasPrefix(o, "namespaces/") {
			lastNamespace = i
		}
		if strings.HasPrefix(o, "roles/") && i < firstRole {
			firstRole = i
		}
	}
	if lastNamespace < 0 || lastNamespace > firstRole {
		t.Errorf("namespace created at %d, a role at %d: want every namespace first", lastNamespace, firstRole)
	}
	// A second run finds everything there and writes nothing new.
	before := len(order)
	if err := writeBootstrap(t.Context(), client); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if len(order) != 2*before {
		t.Errorf("second run asked %d creates, want the same %d (each answered AlreadyExists)", len(order)-before, before)
	}
}
