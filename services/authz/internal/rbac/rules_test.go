package rbac

import (
	"reflect"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

func TestRules(t *testing.T) {
	objs := objects{
		roles: []rbacv1.Role{
			roleOf("ns1", "local", resourceRule(list("get"), list(""), list("configmaps"), "settings")),
		},
		clusterRoles: []rbacv1.ClusterRole{
			clusterRoleOf("global", resourceRule(list("list"), list(""), list("nodes")), urlRule(list("get"), "/metrics")),
			clusterRoleOf("namespaced", resourceRule(list("get"), list("apps"), list("deployments")), urlRule(list("get"), "/debug/*")),
			clusterRoleOf("unbound", resourceRule(list("*"), list("*"), list("*"))),
		},
		clusterBindings: []rbacv1.ClusterRoleBinding{
			clusterBinding("global", "global", groupSubject("team")),
			// The same role bound again, to the user: listed once.
			clusterBinding("global-again", "global", userSubject("alice")),
		},
		bindings: []rbacv1.RoleBinding{
			binding("ns1", "local", "Role", "local", userSubject("alice")),
			binding("ns1", "namespaced", "ClusterRole", "namespaced", groupSubject("team")),
			binding("ns2", "namespaced", "ClusterRole", "namespaced", userSubject("alice")),
			binding("ns1", "gone", "Role", "gone", userSubject("alice")),
		},
	}
	e := load(t, objs, 1)
	alice := user("alice", "team")

	global := authorizationv1.ResourceRule{Verbs: list("list"), APIGroups: list(""), Resources: list("nodes")}
	local := authorizationv1.ResourceRule{Verbs: list("get"), APIGroups: list(""), Resources: list("configmaps"), ResourceNames: list("settings")}
	namespaced := authorizationv1.ResourceRule{Verbs: list("get"), APIGroups: list("apps"), Resources: list("deployments")}
	metrics := authorizationv1.NonResourceRule{Verbs: list("get"), NonResourceURLs: list("/metrics")}

	tests := []struct {
		name       string
		namespace  string
		wantRes    []authorizationv1.ResourceRule
		wantNonRes []authorizationv1.NonResourceRule
	}{
		// Binding order: ClusterRoleBindings first, then RoleBindings in
		// the order given; a ClusterRole's URLs only through a
		// ClusterRoleBinding.
		{"ns1", "ns1", []authorizationv1.ResourceRule{global, local, namespaced}, []authorizationv1.NonResourceRule{metrics}},
		{"ns2", "ns2", []authorizationv1.ResourceRule{global, namespaced}, []authorizationv1.NonResourceRule{metrics}},
		{"cluster", "", []authorizationv1.ResourceRule{global}, []authorizationv1.NonResourceRule{metrics}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotRes, gotNonRes := e.Rules(alice, tt.namespace)
			if !reflect.DeepEqual(gotRes, tt.wantRes) {
				t.Errorf("resource rules = %+v\nwant %+v", gotRes, tt.wantRes)
			}
			if !reflect.DeepEqual(gotNonRes, tt.wantNonRes) {
				t.Errorf("non-resource rules = %+v\nwant %+v", gotNonRes, tt.wantNonRes)
			}
		})
	}

	if r, n := e.Rules(user("stranger"), "ns1"); len(r) != 0 || len(n) != 0 {
		t.Errorf("stranger's rules = %v, %v, want none", r, n)
	}

	// The listing is the caller's: changing it changes no later answer.
	gotRes, _ := e.Rules(alice, "")
	gotRes[0].Verbs[0] = "delete"
	if again, _ := e.Rules(alice, ""); again[0].Verbs[0] != "list" {
		t.Error("changing a listing changed the engine's rules")
	}
}

func TestRulesBeforeLoad(t *testing.T) {
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r, n := e.Rules(user("alice"), "ns"); r != nil || n != nil {
		t.Fatalf("Rules before Load = %v, %v", r, n)
	}
}

// TestRulesDefaultPolicy is what `kubectl auth can-i --list` shows an
// ordinary user on a fresh cluster.
func TestRulesDefaultPolicy(t *testing.T) {
	e := defaultEngine(t, 1)
	resRules, nonResRules := e.Rules(user("someone", rbacpolicy.SystemAuthenticated), "default")
	wantRes := []authorizationv1.ResourceRule{
		{Verbs: list("create"), APIGroups: list("authorization.k8s.io"), Resources: list("selfsubjectaccessreviews", "selfsubjectrulesreviews")},
		{Verbs: list("create"), APIGroups: list("authentication.k8s.io"), Resources: list("selfsubjectreviews")},
	}
	if !reflect.DeepEqual(resRules, wantRes) {
		t.Errorf("resource rules = %+v\nwant %+v", resRules, wantRes)
	}
	if len(nonResRules) != 2 {
		t.Errorf("non-resource rules = %+v, want system:discovery's and system:public-info-viewer's", nonResRules)
	}
}
