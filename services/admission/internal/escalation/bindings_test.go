package escalation

import (
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func bindingGrants() map[string][]grant {
	return map[string][]grant{
		// binder may bind the ClusterRole "view" in ns, and any Role in ns.
		"binder": {
			{namespace: "ns", rule: rbacv1.PolicyRule{Verbs: []string{"bind"}, APIGroups: []string{rbacv1.GroupName},
				Resources: []string{"clusterroles"}, ResourceNames: []string{"view"}}},
			{namespace: "ns", rule: rule([]string{"bind"}, rbacv1.GroupName, "roles")},
		},
		// holder holds what "view" and "reader" grant, in ns only.
		"holder": {{namespace: "ns", rule: rule(readVerbs, "", "pods", "configmaps")}},
		// clusterholder holds what "view" grants everywhere.
		"clusterholder": {{rule: rule(readVerbs, "", "pods", "configmaps")}},
	}
}

func roleBinding(namespace, name string, ref rbacv1.RoleRef) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "someone"}},
		RoleRef:    ref,
	}
}

func clusterRoleBinding(name string, ref rbacv1.RoleRef) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "someone"}},
		RoleRef:    ref,
	}
}

func refTo(kind, name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
}

// newBindingEnv serves the ClusterRoles "view" and "admin" and the Role
// ns/reader through the live GET.
func newBindingEnv(t *testing.T) *env {
	e := newEnv(t, bindingGrants())
	e.clusterRoles["view"] = clusterRole("view", rule(readVerbs, "", "pods", "configmaps"))
	e.clusterRoles["admin"] = clusterRole("admin", rule(all, "*", "*"))
	e.roles["ns/reader"] = role("ns", "reader", rule(get, "", "pods"))
	return e
}

func TestRoleBinding(t *testing.T) {
	cases := []struct {
		name    string
		user    string
		ref     rbacv1.RoleRef
		code    int32 // 0 for allowed
		message string
	}{
		{"bind permission", "binder", refTo("ClusterRole", "view"), 0, ""},
		{"bind permission on another role", "binder", refTo("ClusterRole", "admin"), http.StatusForbidden,
			`rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "binder" (groups=["dev"]) is attempting to grant RBAC permissions not currently held:` +
				"\n" + `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`},
		{"bind permission for a missing role", "binder", refTo("Role", "missing"), 0, ""},
		{"holding the cluster role's rules in the namespace", "holder", refTo("ClusterRole", "view"), 0, ""},
		{"holding the role's rules", "holder", refTo("Role", "reader"), 0, ""},
		{"holding neither", "holder", refTo("ClusterRole", "admin"), http.StatusForbidden, `Verbs:["*"]`},
		{"missing role without bind", "holder", refTo("Role", "missing"), http.StatusNotFound,
			`roles.rbac.authorization.k8s.io "missing" not found`},
		{"missing cluster role without bind", "holder", refTo("ClusterRole", "missing"), http.StatusNotFound,
			`clusterroles.rbac.authorization.k8s.io "missing" not found`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newBindingEnv(t)
			res := e.admit(t, attrs(admissionv1.Create, "rolebindings", "ns", "b", user(tc.user), roleBinding("ns", "b", tc.ref), nil))
			if tc.code == 0 {
				wantAllowed(t, res)
				return
			}
			wantDenied(t, res, tc.code, tc.message)
		})
	}
}

func TestRoleBindingIsCheckedInItsNamespace(t *testing.T) {
	e := newBindingEnv(t)
	// binder may bind "view" in ns only; holder holds its rules in ns only.
	for _, u := range []string{"binder", "holder"} {
		b := roleBinding("other", "b", refTo("ClusterRole", "view"))
		wantDenied(t, e.admit(t, attrs(admissionv1.Create, "rolebindings", "other", "b", user(u), b, nil)), http.StatusForbidden)
	}
}

func TestClusterRoleBinding(t *testing.T) {
	e := newBindingEnv(t)
	b := clusterRoleBinding("b", refTo("ClusterRole", "view"))
	// Rules held in one namespace, or bind there, do not reach cluster-wide.
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "clusterrolebindings", "", "b", user("holder"), b, nil)),
		http.StatusForbidden, `clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden`, `Resources:["configmaps"]`)
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "clusterrolebindings", "", "b", user("binder"), b, nil)), http.StatusForbidden)
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "clusterrolebindings", "", "b", user("clusterholder"), b, nil)))
	// A ClusterRoleBinding cannot reference a Role.
	bad := clusterRoleBinding("b", refTo("Role", "reader"))
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "clusterrolebindings", "", "b", user("clusterholder"), bad, nil)), http.StatusBadRequest)
}

func TestBindingReadsTheRoleFromTheInformer(t *testing.T) {
	e := newEnv(t, bindingGrants())
	// Only the informer knows "cached"; the live GET would say NotFound.
	cached := clusterRole("cached", rule(get, "", "pods"))
	if err := e.factory.Rbac().V1().ClusterRoles().Informer().GetIndexer().Add(cached); err != nil {
		t.Fatal(err)
	}
	cachedRole := role("ns", "cachedrole", rule(all, "", "secrets"))
	if err := e.factory.Rbac().V1().Roles().Informer().GetIndexer().Add(cachedRole); err != nil {
		t.Fatal(err)
	}
	b := roleBinding("ns", "b", refTo("ClusterRole", "cached"))
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "rolebindings", "ns", "b", user("holder"), b, nil)))
	b = roleBinding("ns", "b", refTo("Role", "cachedrole"))
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "rolebindings", "ns", "b", user("holder"), b, nil)),
		http.StatusForbidden, `{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`)
}

func TestBindingUpdate(t *testing.T) {
	e := newBindingEnv(t)
	old := roleBinding("ns", "b", refTo("ClusterRole", "admin"))
	// Only the finalizers change: allowed without asking anything.
	gc := old.DeepCopy()
	gc.Finalizers = []string{"example.com/keep"}
	wantAllowed(t, e.admit(t, attrs(admissionv1.Update, "rolebindings", "ns", "b", user("nobody"), gc, old)))
	if n := e.authz.calls.Load(); n != 0 {
		t.Fatalf("%d reviews for a GC-only update, want 0", n)
	}
	// New subjects of a role the writer cannot grant: denied.
	more := old.DeepCopy()
	more.Subjects = append(more.Subjects, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "everyone"})
	wantDenied(t, e.admit(t, attrs(admissionv1.Update, "rolebindings", "ns", "b", user("holder"), more, old)), http.StatusForbidden)
	cold := clusterRoleBinding("b", refTo("ClusterRole", "view"))
	cmore := cold.DeepCopy()
	cmore.Subjects = nil
	wantAllowed(t, e.admit(t, attrs(admissionv1.Update, "clusterrolebindings", "", "b", user("clusterholder"), cmore, cold)))
}
