package authz

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/authz/internal/rbac"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// startSync runs a policySync over a fake API and waits for its first load.
func startSync(t *testing.T) (*fake.Clientset, *rbac.Engine, *policySync) {
	t.Helper()
	client := fake.NewClientset()
	engine, err := rbac.New(rbac.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newPolicySync(engine, informers.NewSharedInformerFactory(client, 0), time.Millisecond,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := s.ready(ctx); err == nil {
		t.Fatal("ready before the informers ran")
	}
	s.start(ctx, client)
	polltest.Until(t, 10*time.Second, "the engine to be ready", func() bool { return s.ready(ctx) == nil })
	return client, engine, s
}

func decide(t *testing.T, e *rbac.Engine, a authz.Attributes) authz.Decision {
	t.Helper()
	res, err := e.Authorize(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return res.Decision
}

// TestPolicySyncFollowsBindings: a RoleBinding written to the API grants,
// its deletion revokes, and the defaults (view, cluster-admin for
// system:masters) are there without anyone writing them.
func TestPolicySyncFollowsBindings(t *testing.T) {
	client, engine, _ := startSync(t)
	bob := authz.Attributes{
		User: authenticationv1.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}},
		Verb: "list", Namespace: "default", APIVersion: "v1", Resource: "configmaps", ResourceRequest: true,
	}
	master := bob
	master.User = authenticationv1.UserInfo{Username: "root", Groups: []string{"system:masters"}}
	if d := decide(t, engine, master); d != authz.DecisionAllow {
		t.Errorf("system:masters before any object = %v, want Allow from the default policy", d)
	}
	if d := decide(t, engine, bob); d != authz.DecisionNoOpinion {
		t.Fatalf("bob before the binding = %v, want NoOpinion", d)
	}

	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-view", Namespace: "default", ResourceVersion: "42"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}},
	}
	bindings := client.RbacV1().RoleBindings("default")
	if _, err := bindings.Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "bob to be allowed", func() bool { return decide(t, engine, bob) == authz.DecisionAllow })
	res, _ := engine.Authorize(context.Background(), bob)
	if res.Revision != 42 {
		t.Errorf("revision after the binding = %d, want 42 (its resourceVersion)", res.Revision)
	}

	if err := bindings.Delete(context.Background(), "bob-view", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "bob to be no longer allowed", func() bool { return decide(t, engine, bob) == authz.DecisionNoOpinion })
}

// TestWithDefaultsAPIWins: an object in the API replaces the default of
// the same name, and the other defaults stay.
func TestWithDefaultsAPIWins(t *testing.T) {
	mine := rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view"}}
	roles, bindings := withDefaults([]rbacv1.ClusterRole{mine}, nil)
	defRoles, defBindings := rbacpolicy.Defaults()
	if len(roles) != len(defRoles) || len(bindings) != len(defBindings) {
		t.Fatalf("got %d roles %d bindings, want %d and %d", len(roles), len(bindings), len(defRoles), len(defBindings))
	}
	for _, r := range roles {
		if r.Name == "view" && len(r.Rules) != 0 {
			t.Errorf("the default view replaced the API's")
		}
	}
}
