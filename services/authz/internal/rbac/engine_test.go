package rbac

import (
	"context"
	"errors"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

var (
	allow     = authz.DecisionAllow
	noOpinion = authz.DecisionNoOpinion
)

// bindAlice gives user alice the ClusterRole "r" holding rules, cluster-wide.
func bindAlice(rules ...rbacv1.PolicyRule) objects {
	return objects{
		clusterRoles:    []rbacv1.ClusterRole{clusterRoleOf("r", rules...)},
		clusterBindings: []rbacv1.ClusterRoleBinding{clusterBinding("b", "r", userSubject("alice"))},
	}
}

// TestAuthorize is the table of kube's RBAC semantics: objects, a request,
// the decision.
func TestAuthorize(t *testing.T) {
	alice := user("alice")
	get, all := list("get"), list("*")
	core, anyGroup := list(""), list("*")

	aggregated := objects{
		clusterRoles: []rbacv1.ClusterRole{
			func() rbacv1.ClusterRole {
				// Rules a controller once wrote for a label since removed:
				// aggregation recomputes them, so they grant nothing.
				r := aggregating("monitoring", metav1.LabelSelector{MatchLabels: map[string]string{"agg": "monitoring"}})
				r.Rules = []rbacv1.PolicyRule{resourceRule(get, core, list("secrets"))}
				return r
			}(),
			labelled(clusterRoleOf("pods-reader", resourceRule(get, core, list("pods"))), map[string]string{"agg": "monitoring"}),
			labelled(clusterRoleOf("nodes-reader", resourceRule(get, core, list("nodes"))), map[string]string{"agg": "other"}),
			aggregating("by-expression", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "agg", Operator: metav1.LabelSelectorOpIn, Values: []string{"other"}},
			}}),
			// Nested: top aggregates "monitoring", itself aggregated.
			labelled(aggregating("mid", metav1.LabelSelector{MatchLabels: map[string]string{"agg": "monitoring"}}), map[string]string{"agg": "top"}),
			aggregating("top", metav1.LabelSelector{MatchLabels: map[string]string{"agg": "top"}}),
		},
		clusterBindings: []rbacv1.ClusterRoleBinding{
			clusterBinding("monitoring", "monitoring", userSubject("alice")),
			clusterBinding("by-expression", "by-expression", userSubject("bob")),
			clusterBinding("top", "top", userSubject("carol")),
		},
	}

	namespaced := objects{
		roles: []rbacv1.Role{
			roleOf("ns1", "pod-reader", resourceRule(get, core, list("pods")), urlRule(get, "/healthz")),
		},
		clusterRoles: []rbacv1.ClusterRole{
			clusterRoleOf("reader", resourceRule(get, anyGroup, all), urlRule(get, "*")),
		},
		bindings: []rbacv1.RoleBinding{
			binding("ns1", "role", "Role", "pod-reader", userSubject("alice")),
			binding("ns1", "cluster-role", "ClusterRole", "reader", userSubject("bob")),
			binding("ns2", "role-elsewhere", "Role", "pod-reader", userSubject("carol")),
			binding("ns1", "sa-local", "Role", "pod-reader", saSubject("", "builder")),
			binding("ns1", "sa-remote", "Role", "pod-reader", saSubject("ns9", "deployer")),
			binding("ns1", "sa-group", "Role", "pod-reader", groupSubject("system:serviceaccounts:ns7")),
		},
		clusterBindings: []rbacv1.ClusterRoleBinding{
			clusterBinding("sa-without-namespace", "reader", saSubject("", "builder")),
			clusterBinding("group", "reader", groupSubject("auditors")),
		},
	}

	tests := []struct {
		name    string
		objs    objects
		attrs   authz.Attributes
		want    authz.Decision
		wantWhy string
	}{
		// Verbs.
		{"exact verb", bindAlice(resourceRule(get, core, list("pods"))), res(alice, "get", "", "pods", "ns", "p"), allow, ""},
		{"other verb", bindAlice(resourceRule(get, core, list("pods"))), res(alice, "list", "", "pods", "ns", ""), noOpinion, ""},
		{"verb *", bindAlice(resourceRule(all, core, list("pods"))), res(alice, "escalate", "", "pods", "ns", "p"), allow, ""},
		{"no verbs", bindAlice(resourceRule(nil, core, list("pods"))), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},

		// API groups.
		{"core group", bindAlice(resourceRule(get, core, list("pods"))), res(alice, "get", "", "pods", "ns", "p"), allow, ""},
		{"core rule, other group", bindAlice(resourceRule(get, core, list("deployments"))), res(alice, "get", "apps", "deployments", "ns", "d"), noOpinion, ""},
		{"named group", bindAlice(resourceRule(get, list("apps"), list("deployments"))), res(alice, "get", "apps", "deployments", "ns", "d"), allow, ""},
		{"named group, core request", bindAlice(resourceRule(get, list("apps"), list("pods"))), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},
		{"group *", bindAlice(resourceRule(get, anyGroup, list("widgets"))), res(alice, "get", "example.com", "widgets", "ns", "w"), allow, ""},
		{"no groups", bindAlice(resourceRule(get, nil, list("pods"))), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},

		// Resources and subresources.
		{"resource *", bindAlice(resourceRule(get, core, all)), res(alice, "get", "", "secrets", "ns", "s"), allow, ""},
		{"resource * covers subresources", bindAlice(resourceRule(get, core, all)), res(alice, "get", "", "pods/log", "ns", "p"), allow, ""},
		{"resource does not cover its subresource", bindAlice(resourceRule(get, core, list("pods"))), res(alice, "get", "", "pods/log", "ns", "p"), noOpinion, ""},
		{"subresource", bindAlice(resourceRule(get, core, list("pods/log"))), res(alice, "get", "", "pods/log", "ns", "p"), allow, ""},
		{"subresource does not cover its resource", bindAlice(resourceRule(get, core, list("pods/log"))), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},
		{"subresource of another resource", bindAlice(resourceRule(get, core, list("pods/log"))), res(alice, "get", "", "nodes/log", "", "n"), noOpinion, ""},
		{"*/scale on deployments", bindAlice(resourceRule(all, anyGroup, list("*/scale"))), res(alice, "update", "apps", "deployments/scale", "ns", "d"), allow, ""},
		{"*/scale on replicasets", bindAlice(resourceRule(all, anyGroup, list("*/scale"))), res(alice, "get", "apps", "replicasets/scale", "ns", "r"), allow, ""},
		{"*/scale not the resource", bindAlice(resourceRule(all, anyGroup, list("*/scale"))), res(alice, "get", "apps", "deployments", "ns", "d"), noOpinion, ""},
		{"*/scale not another subresource", bindAlice(resourceRule(all, anyGroup, list("*/scale"))), res(alice, "get", "apps", "deployments/status", "ns", "d"), noOpinion, ""},
		{"*/scale not a longer subresource", bindAlice(resourceRule(all, anyGroup, list("*/scale"))), res(alice, "get", "apps", "deployments/rescale", "ns", "d"), noOpinion, ""},
		// kube deliberately has no "pods/*" glob (kubernetes/kubernetes#78936).
		{"pods/* is not a glob: subresource", bindAlice(resourceRule(get, core, list("pods/*"))), res(alice, "get", "", "pods/log", "ns", "p"), noOpinion, ""},
		{"pods/* is not a glob: resource", bindAlice(resourceRule(get, core, list("pods/*"))), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},

		// Resource names.
		{"listed name", bindAlice(resourceRule(list("get", "update", "list", "create"), core, list("configmaps"), "cm")), res(alice, "get", "", "configmaps", "ns", "cm"), allow, ""},
		{"listed name, update", bindAlice(resourceRule(list("get", "update", "list", "create"), core, list("configmaps"), "cm")), res(alice, "update", "", "configmaps", "ns", "cm"), allow, ""},
		{"other name", bindAlice(resourceRule(list("get", "update", "list", "create"), core, list("configmaps"), "cm")), res(alice, "get", "", "configmaps", "ns", "other"), noOpinion, ""},
		{"names never match list", bindAlice(resourceRule(list("get", "update", "list", "create"), core, list("configmaps"), "cm")), res(alice, "list", "", "configmaps", "ns", ""), noOpinion, ""},
		{"names never match create", bindAlice(resourceRule(list("get", "update", "list", "create"), core, list("configmaps"), "cm")), res(alice, "create", "", "configmaps", "ns", ""), noOpinion, ""},
		{"names on a subresource", bindAlice(resourceRule(get, core, list("pods/log"), "web")), res(alice, "get", "", "pods/log", "ns", "web"), allow, ""},

		// Non-resource URLs.
		{"exact URL", bindAlice(urlRule(get, "/healthz")), nonRes(alice, "get", "/healthz"), allow, ""},
		{"exact URL is not a prefix", bindAlice(urlRule(get, "/healthz")), nonRes(alice, "get", "/healthz/etcd"), noOpinion, ""},
		{"URL verb", bindAlice(urlRule(get, "/healthz")), nonRes(alice, "post", "/healthz"), noOpinion, ""},
		{"URL prefix", bindAlice(urlRule(get, "/apis/*")), nonRes(alice, "get", "/apis/apps/v1"), allow, ""},
		{"URL prefix, bare", bindAlice(urlRule(get, "/apis/*")), nonRes(alice, "get", "/apis/"), allow, ""},
		{"URL prefix needs the slash", bindAlice(urlRule(get, "/apis/*")), nonRes(alice, "get", "/apis"), noOpinion, ""},
		{"URL *", bindAlice(urlRule(all, "*")), nonRes(alice, "delete", "/anything/at/all"), allow, ""},
		{"resource rule, URL request", bindAlice(resourceRule(all, anyGroup, all)), nonRes(alice, "get", "/healthz"), noOpinion, ""},
		{"URL rule, resource request", bindAlice(urlRule(all, "*")), res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},
		{"URL in a Role is ignored", namespaced, nonRes(alice, "get", "/healthz"), noOpinion, ""},
		{"URL in a ClusterRole bound by a RoleBinding is ignored", namespaced, nonRes(user("bob"), "get", "/healthz"), noOpinion, ""},
		{"URL in a ClusterRole bound cluster-wide", namespaced, nonRes(user("dave", "auditors"), "get", "/healthz"), allow, `RBAC: allowed by ClusterRoleBinding "group" of ClusterRole "reader" to Group "auditors"`},

		// Namespace scope.
		{"Role in its namespace", namespaced, res(alice, "get", "", "pods", "ns1", "p"), allow, `RBAC: allowed by RoleBinding "role/ns1" of Role "pod-reader" to User "alice"`},
		{"Role in another namespace", namespaced, res(alice, "get", "", "pods", "ns2", "p"), noOpinion, ""},
		{"Role cluster-scoped", namespaced, res(alice, "get", "", "pods", "", "p"), noOpinion, ""},
		{"RoleBinding to a Role of another namespace", namespaced, res(user("carol"), "get", "", "pods", "ns2", "p"), noOpinion, `RBAC: role.rbac.authorization.k8s.io "pod-reader" not found`},
		{"ClusterRole by RoleBinding in its namespace", namespaced, res(user("bob"), "get", "apps", "deployments", "ns1", "d"), allow, `RBAC: allowed by RoleBinding "cluster-role/ns1" of ClusterRole "reader" to User "bob"`},
		{"ClusterRole by RoleBinding in another namespace", namespaced, res(user("bob"), "get", "apps", "deployments", "ns2", "d"), noOpinion, ""},
		{"ClusterRole by RoleBinding on a cluster-scoped resource", namespaced, res(user("bob"), "get", "", "nodes", "", "n"), noOpinion, ""},
		{"ClusterRoleBinding in any namespace", namespaced, res(user("dave", "auditors"), "get", "", "pods", "ns5", "p"), allow, ""},
		{"ClusterRoleBinding cluster-scoped", namespaced, res(user("dave", "auditors"), "get", "", "nodes", "", "n"), allow, ""},

		// Subjects.
		{"user subject", bindAlice(resourceRule(get, core, list("pods"))), res(alice, "get", "", "pods", "ns", "p"), allow, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "alice"`},
		{"user subject, other user", bindAlice(resourceRule(get, core, list("pods"))), res(user("mallory"), "get", "", "pods", "ns", "p"), noOpinion, ""},
		{"user subject is not a group", bindAlice(resourceRule(get, core, list("pods"))), res(user("mallory", "alice"), "get", "", "pods", "ns", "p"), noOpinion, ""},
		{"group subject", namespaced, res(user("dave", "x", "auditors"), "list", "", "pods", "ns1", ""), noOpinion, ""},
		{"group subject, get", namespaced, res(user("dave", "x", "auditors"), "get", "", "pods", "ns1", "p"), allow, ""},
		{"group subject is not a user", namespaced, res(user("auditors"), "get", "", "pods", "ns1", "p"), noOpinion, ""},
		{"service account, binding's namespace", namespaced, res(user("system:serviceaccount:ns1:builder"), "get", "", "pods", "ns1", "p"), allow, `RBAC: allowed by RoleBinding "sa-local/ns1" of Role "pod-reader" to ServiceAccount "builder/ns1"`},
		{"service account of another namespace", namespaced, res(user("system:serviceaccount:ns2:builder"), "get", "", "pods", "ns1", "p"), noOpinion, ""},
		{"service account, explicit namespace", namespaced, res(user("system:serviceaccount:ns9:deployer"), "get", "", "pods", "ns1", "p"), allow, ""},
		{"service account without namespace in a ClusterRoleBinding", namespaced, res(user("system:serviceaccount:ns1:builder"), "get", "", "nodes", "", "n"), noOpinion, ""},
		{"service account without namespace in a ClusterRoleBinding, empty namespace", namespaced, res(user("system:serviceaccount::builder"), "get", "", "nodes", "", "n"), noOpinion, ""},
		{"service account groups", namespaced, res(user("system:serviceaccount:ns7:any", "system:serviceaccounts", "system:serviceaccounts:ns7"), "get", "", "pods", "ns1", "p"), allow, ""},
		{"system:masters is not special", bindAlice(resourceRule(get, core, list("pods"))), res(user("root", authz.SystemMastersGroup), "delete", "", "nodes", "", "n"), noOpinion, ""},

		// Aggregation.
		{"aggregated rule", aggregated, res(alice, "get", "", "pods", "ns", "p"), allow, `RBAC: allowed by ClusterRoleBinding "monitoring" of ClusterRole "monitoring" to User "alice"`},
		{"stale rules of an aggregated role", aggregated, res(alice, "get", "", "secrets", "ns", "s"), noOpinion, ""},
		{"unselected role", aggregated, res(alice, "get", "", "nodes", "", "n"), noOpinion, ""},
		{"aggregation by expression", aggregated, res(user("bob"), "get", "", "nodes", "", "n"), allow, ""},
		{"nested aggregation", aggregated, res(user("carol"), "get", "", "pods", "ns", "p"), allow, ""},
		{"aggregating nothing is not missing", objects{
			clusterRoles:    []rbacv1.ClusterRole{aggregating("empty", metav1.LabelSelector{MatchLabels: map[string]string{"none": "x"}})},
			clusterBindings: []rbacv1.ClusterRoleBinding{clusterBinding("b", "empty", userSubject("alice"))},
		}, res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},

		// Roles that do not resolve.
		{"missing ClusterRole", objects{clusterBindings: []rbacv1.ClusterRoleBinding{clusterBinding("b", "gone", userSubject("alice"))}},
			res(alice, "get", "", "pods", "ns", "p"), noOpinion, `RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`},
		{"ClusterRoleBinding to a Role", objects{
			roles: []rbacv1.Role{roleOf("ns", "r", resourceRule(all, anyGroup, all))},
			clusterBindings: []rbacv1.ClusterRoleBinding{{
				ObjectMeta: metav1.ObjectMeta{Name: "b"},
				RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "r"},
				Subjects:   []rbacv1.Subject{userSubject("alice")},
			}},
		}, res(alice, "get", "", "pods", "ns", "p"), noOpinion, `RBAC: role.rbac.authorization.k8s.io "r" not found`},
		{"unknown role kind", objects{bindings: []rbacv1.RoleBinding{binding("ns", "b", "Policy", "p", userSubject("alice"))}},
			res(alice, "get", "", "pods", "ns", "p"), noOpinion, `RBAC: unsupported role reference kind: "Policy"`},
		{"missing role beside a granting one", objects{
			clusterRoles: []rbacv1.ClusterRole{clusterRoleOf("r", resourceRule(get, core, list("pods")))},
			clusterBindings: []rbacv1.ClusterRoleBinding{
				clusterBinding("a", "gone", userSubject("alice")),
				clusterBinding("b", "r", userSubject("alice")),
			},
		}, res(alice, "get", "", "pods", "ns", "p"), allow, ""},
		{"empty policy", objects{}, res(alice, "get", "", "pods", "ns", "p"), noOpinion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := load(t, tt.objs, 7)
			got := authorize(t, e, tt.attrs)
			if got.Decision != tt.want {
				t.Fatalf("decision = %v (%q), want %v", got.Decision, got.Reason, tt.want)
			}
			if got.Revision != 7 {
				t.Errorf("revision = %d, want 7", got.Revision)
			}
			if (tt.wantWhy != "" || got.Decision == noOpinion) && got.Reason != tt.wantWhy {
				t.Errorf("reason = %q, want %q", got.Reason, tt.wantWhy)
			}
		})
	}
}

func TestAuthorizeBeforeLoad(t *testing.T) {
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Authorize(context.Background(), res(user("alice"), "get", "", "pods", "ns", "p"))
	if !errors.Is(err, ErrNotLoaded) || !errors.Is(err, authz.ErrEvaluation) {
		t.Fatalf("err = %v, want ErrNotLoaded and authz.ErrEvaluation", err)
	}
	if res.Decision == authz.DecisionAllow {
		t.Fatalf("decision = %v before Load", res.Decision)
	}
}

func TestLoadRevisions(t *testing.T) {
	grants := bindAlice(resourceRule(list("get"), list(""), list("pods")))
	e := load(t, grants, 5)
	ask := res(user("alice"), "get", "", "pods", "ns", "p")

	if err := e.Load(nil, nil, nil, nil, 4); !errors.Is(err, ErrStaleRevision) {
		t.Fatalf("Load(older) = %v, want ErrStaleRevision", err)
	}
	if err := e.Load(nil, nil, nil, nil, -1); !errors.Is(err, ErrInvalidRevision) {
		t.Fatalf("Load(negative) = %v, want ErrInvalidRevision", err)
	}
	if got := authorize(t, e, ask); got.Decision != allow || got.Revision != 5 {
		t.Fatalf("after refused loads: %+v, want the revision 5 policy", got)
	}

	// The same revision again is accepted (a resync), and a newer one
	// replaces the policy: here it revokes alice's grant.
	if err := e.Load(nil, grants.clusterRoles, nil, grants.clusterBindings, 5); err != nil {
		t.Fatalf("Load(same revision): %v", err)
	}
	if err := e.Load(nil, nil, nil, nil, 6); err != nil {
		t.Fatalf("Load(newer): %v", err)
	}
	if got := authorize(t, e, ask); got.Decision != noOpinion || got.Revision != 6 {
		t.Fatalf("after revocation: %+v, want NoOpinion at 6", got)
	}
}

// TestLoadCopiesObjects checks the engine does not alias the caller's
// objects: an informer's cache may change them after Load returns.
func TestLoadCopiesObjects(t *testing.T) {
	objs := bindAlice(resourceRule(list("get"), list(""), list("pods")))
	e := load(t, objs, 1)
	objs.clusterRoles[0].Rules[0].Verbs[0] = "delete"
	objs.clusterBindings[0].Subjects[0].Name = "mallory"

	if got := authorize(t, e, res(user("alice"), "get", "", "pods", "ns", "p")); got.Decision != allow {
		t.Fatalf("decision after the caller changed its objects = %v, want Allow", got.Decision)
	}
	rules, _ := e.Rules(user("alice"), "")
	if len(rules) != 1 || rules[0].Verbs[0] != "get" {
		t.Fatalf("Rules after the caller changed its objects = %+v", rules)
	}
}

// TestNeverDenies runs requests nothing grants through a policy with every
// kind of rule: RBAC has no opinion, it never denies.
func TestNeverDenies(t *testing.T) {
	roles, bindings := rbacpolicy.Defaults()
	e := load(t, objects{clusterRoles: roles, clusterBindings: bindings}, 1)
	for _, a := range []authz.Attributes{
		res(user("nobody"), "delete", "", "nodes", "", "n"),
		res(user("nobody", rbacpolicy.SystemAuthenticated), "create", "", "pods", "ns", ""),
		nonRes(user("nobody", rbacpolicy.SystemUnauthenticated), "get", "/metrics"),
	} {
		if got := authorize(t, e, a); got.Decision != noOpinion {
			t.Errorf("%+v: decision = %v, want NoOpinion", a, got.Decision)
		}
	}
	if strings.Contains(authorize(t, e, res(user("nobody"), "get", "", "pods", "ns", "p")).Reason, "allowed") {
		t.Error("a refusal's reason says allowed")
	}
}
