package rbac

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubesplit/kubesplit/pkg/authz"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

func defaultEngine(t testing.TB, revision int64) *Engine {
	t.Helper()
	roles, bindings := rbacpolicy.Defaults()
	return load(t, objects{clusterRoles: roles, clusterBindings: bindings}, revision)
}

var anonymous = user("system:anonymous", rbacpolicy.SystemUnauthenticated)

func TestDefaultPolicyAnonymous(t *testing.T) {
	e := defaultEngine(t, 1)
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/version", "/version/"} {
		if got := authorize(t, e, nonRes(anonymous, "get", path)); got.Decision != allow {
			t.Errorf("anonymous get %s = %v, want Allow", path, got.Decision)
		}
	}
	refused := []authz.Attributes{
		nonRes(anonymous, "post", "/healthz"),
		nonRes(anonymous, "get", "/healthz/etcd"),
		nonRes(anonymous, "get", "/livez/ping"),
		nonRes(anonymous, "get", "/api"),
		nonRes(anonymous, "get", "/apis/apps/v1"),
		nonRes(anonymous, "get", "/openapi/v2"),
		nonRes(anonymous, "get", "/metrics"),
		nonRes(anonymous, "get", "/debug/pprof/"),
		res(anonymous, "list", "", "namespaces", "", ""),
		res(anonymous, "get", "", "pods", "default", "p"),
		res(anonymous, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", ""),
	}
	for _, a := range refused {
		if got := authorize(t, e, a); got.Decision != noOpinion {
			t.Errorf("anonymous %s %s%s = %v, want NoOpinion", a.Verb, a.Path, a.Resource, got.Decision)
		}
	}
}

func TestDefaultPolicyAuthenticated(t *testing.T) {
	e := defaultEngine(t, 1)
	someone := user("someone", rbacpolicy.SystemAuthenticated)
	allowed := []authz.Attributes{
		nonRes(someone, "get", "/api"),
		nonRes(someone, "get", "/apis/apps/v1"),
		nonRes(someone, "get", "/openapi/v3/apis/apps/v1"),
		nonRes(someone, "get", "/healthz"),
		res(someone, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", ""),
		res(someone, "create", "authorization.k8s.io", "selfsubjectrulesreviews", "", ""),
		res(someone, "create", "authentication.k8s.io", "selfsubjectreviews", "", ""),
	}
	for _, a := range allowed {
		if got := authorize(t, e, a); got.Decision != allow {
			t.Errorf("authenticated %s %s%s = %v, want Allow", a.Verb, a.Path, a.Resource, got.Decision)
		}
	}
	for _, a := range []authz.Attributes{
		res(someone, "list", "", "pods", "default", ""),
		res(someone, "create", "authorization.k8s.io", "subjectaccessreviews", "", ""),
		nonRes(someone, "get", "/metrics"),
	} {
		if got := authorize(t, e, a); got.Decision != noOpinion {
			t.Errorf("authenticated %s %s%s = %v, want NoOpinion", a.Verb, a.Path, a.Resource, got.Decision)
		}
	}
}

func TestDefaultPolicySystemMasters(t *testing.T) {
	e := defaultEngine(t, 1)
	root := user("root", authz.SystemMastersGroup)
	for _, a := range []authz.Attributes{
		res(root, "delete", "", "nodes", "", "n"),
		res(root, "escalate", "rbac.authorization.k8s.io", "clusterroles", "", "cluster-admin"),
		res(root, "get", "", "pods/exec", "kube-system", "p"),
		res(root, "create", "example.com", "widgets", "ns", ""),
		nonRes(root, "get", "/metrics"),
		nonRes(root, "put", "/debug/flags/v"),
	} {
		got := authorize(t, e, a)
		if got.Decision != allow {
			t.Errorf("system:masters %s %s%s = %v, want Allow", a.Verb, a.Path, a.Resource, got.Decision)
		}
		if want := `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`; got.Reason != want {
			t.Errorf("reason = %q, want %q", got.Reason, want)
		}
	}
}

// TestDefaultPolicyNamespaceRoles binds admin, edit and view in one
// namespace: their rules come only from aggregation.
func TestDefaultPolicyNamespaceRoles(t *testing.T) {
	roles, clusterBindings := rbacpolicy.Defaults()
	// Strip what DefaultPolicy filled in, so aggregation at load time is
	// what grants.
	for i := range roles {
		if roles[i].AggregationRule != nil {
			roles[i].Rules = nil
		}
	}
	e := load(t, objects{
		clusterRoles:    roles,
		clusterBindings: clusterBindings,
		bindings: []rbacv1.RoleBinding{
			binding("team", "viewers", "ClusterRole", "view", userSubject("viewer")),
			binding("team", "editors", "ClusterRole", "edit", userSubject("editor")),
			binding("team", "admins", "ClusterRole", "admin", userSubject("admin")),
		},
	}, 1)
	tests := []struct {
		who, verb, group, resource string
		want                       authz.Decision
	}{
		{"viewer", "get", "", "pods", allow},
		{"viewer", "list", "apps", "deployments", allow},
		{"viewer", "get", "", "pods/log", allow},
		{"viewer", "get", "", "secrets", noOpinion},
		{"viewer", "create", "", "pods", noOpinion},
		{"editor", "get", "", "secrets", allow},
		{"editor", "create", "", "pods/exec", allow},
		{"editor", "update", "apps", "deployments/scale", allow},
		{"editor", "list", "", "pods", allow}, // from view, through edit
		{"editor", "create", "rbac.authorization.k8s.io", "rolebindings", noOpinion},
		{"admin", "create", "rbac.authorization.k8s.io", "rolebindings", allow},
		{"admin", "delete", "", "secrets", allow}, // from edit, through admin
		{"admin", "get", "", "pods", allow},       // from view, through edit, through admin
		{"admin", "get", "", "resourcequotas", allow},
		{"admin", "update", "", "resourcequotas", noOpinion},
		{"admin", "get", "", "nodes", noOpinion},
	}
	for _, tt := range tests {
		got := authorize(t, e, res(user(tt.who), tt.verb, tt.group, tt.resource, "team", "x"))
		if got.Decision != tt.want {
			t.Errorf("%s %s %s/%s in team = %v, want %v", tt.who, tt.verb, tt.group, tt.resource, got.Decision, tt.want)
		}
		other := authorize(t, e, res(user(tt.who), tt.verb, tt.group, tt.resource, "other", "x"))
		if other.Decision != noOpinion {
			t.Errorf("%s %s %s/%s in another namespace = %v, want NoOpinion", tt.who, tt.verb, tt.group, tt.resource, other.Decision)
		}
	}
}

func TestDefaultPolicyObjects(t *testing.T) {
	roles, bindings := rbacpolicy.Defaults()
	byName := map[string]rbacv1.ClusterRole{}
	for _, r := range roles {
		byName[r.Name] = r
		checkBootstrapMeta(t, "ClusterRole "+r.Name, r.Labels, r.Annotations)
		if r.Kind != "ClusterRole" || r.APIVersion != "rbac.authorization.k8s.io/v1" {
			t.Errorf("ClusterRole %s: type %s %s", r.Name, r.APIVersion, r.Kind)
		}
	}
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:aggregate-to-admin",
		"system:aggregate-to-edit", "system:aggregate-to-view", "system:discovery", "system:basic-user",
		"system:public-info-viewer"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("ClusterRole %s missing", name)
		}
	}
	if got := byName["edit"].Labels[rbacpolicy.AggregateToAdmin]; got != "true" {
		t.Errorf("edit's %s label = %q, want true", rbacpolicy.AggregateToAdmin, got)
	}
	if got := byName["view"].Labels[rbacpolicy.AggregateToEdit]; got != "true" {
		t.Errorf("view's %s label = %q, want true", rbacpolicy.AggregateToEdit, got)
	}
	// admin holds edit's and view's rules, as the aggregation controller
	// leaves it.
	admin := byName["admin"].Rules
	for _, from := range []string{"system:aggregate-to-admin", "system:aggregate-to-edit", "system:aggregate-to-view"} {
		for _, r := range byName[from].Rules {
			if !slices.ContainsFunc(admin, func(a rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(a, r) }) {
				t.Errorf("admin lacks %s's rule %v", from, r)
			}
		}
	}

	subjects := map[string][]string{}
	for _, b := range bindings {
		checkBootstrapMeta(t, "ClusterRoleBinding "+b.Name, b.Labels, b.Annotations)
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.APIGroup != rbacv1.GroupName {
			t.Errorf("ClusterRoleBinding %s: roleRef %+v", b.Name, b.RoleRef)
		}
		for _, s := range b.Subjects {
			if s.Kind != rbacv1.GroupKind || s.APIGroup != rbacv1.GroupName {
				t.Errorf("ClusterRoleBinding %s: subject %+v", b.Name, s)
			}
			subjects[b.RoleRef.Name] = append(subjects[b.RoleRef.Name], s.Name)
		}
	}
	want := map[string][]string{
		"cluster-admin":             {"system:masters"},
		"system:discovery":          {rbacpolicy.SystemAuthenticated},
		"system:basic-user":         {rbacpolicy.SystemAuthenticated},
		"system:public-info-viewer": {rbacpolicy.SystemAuthenticated, rbacpolicy.SystemUnauthenticated},
		"system:monitoring":         {"system:monitoring"},
	}
	for role, groups := range want {
		if !slices.Equal(subjects[role], groups) {
			t.Errorf("%s bound to %v, want %v", role, subjects[role], groups)
		}
	}
	if len(subjects) != len(want) {
		t.Errorf("bindings for %d roles, want %d", len(subjects), len(want))
	}
}

func checkBootstrapMeta(t *testing.T, what string, labels, annotations map[string]string) {
	t.Helper()
	if labels[rbacpolicy.BootstrappingLabel] != rbacpolicy.BootstrappingValue {
		t.Errorf("%s: label %s = %q", what, rbacpolicy.BootstrappingLabel, labels[rbacpolicy.BootstrappingLabel])
	}
	if annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
		t.Errorf("%s: annotation %s = %q", what, rbacv1.AutoUpdateAnnotationKey, annotations[rbacv1.AutoUpdateAnnotationKey])
	}
}

// TestDefaultPolicyFresh checks each call returns objects of its own.
func TestDefaultPolicyFresh(t *testing.T) {
	roles, bindings := rbacpolicy.Defaults()
	for i := range roles {
		for j := range roles[i].Rules {
			roles[i].Rules[j].Verbs[0] = "changed"
		}
		roles[i].Labels["changed"] = "true"
	}
	bindings[0].Subjects[0].Name = "changed"

	again, againBindings := rbacpolicy.Defaults()
	for _, r := range again {
		for _, rule := range r.Rules {
			if rule.Verbs[0] == "changed" {
				t.Fatalf("%s: a change to an earlier result shows", r.Name)
			}
		}
		if r.Labels["changed"] != "" {
			t.Fatalf("%s: a label change to an earlier result shows", r.Name)
		}
	}
	if againBindings[0].Subjects[0].Name == "changed" {
		t.Fatal("a binding change to an earlier result shows")
	}
	// Within one result too: admin's aggregated rules are copies.
	fresh, _ := rbacpolicy.Defaults()
	for i := range fresh {
		if fresh[i].Name == "admin" {
			fresh[i].Rules[0].Verbs[0] = "changed"
		}
	}
	for _, r := range fresh {
		if r.Name != "admin" && len(r.Rules) > 0 && r.Rules[0].Verbs[0] == "changed" {
			t.Fatalf("changing admin's rules changed %s's", r.Name)
		}
	}
}
