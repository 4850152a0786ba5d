package escalation

import (
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	get       = []string{"get"}
	readVerbs = []string{"get", "list", "watch"}
	all       = []string{"*"}
)

func roleGrants() map[string][]grant {
	return map[string][]grant{
		// escalator may escalate roles in ns and holds nothing else.
		"escalator": {{namespace: "ns", rule: rule([]string{"escalate"}, rbacv1.GroupName, "roles")}},
		// holder reads pods (and their logs) and configmaps in ns.
		"holder": {
			{namespace: "ns", rule: rule(readVerbs, "", "pods", "pods/log", "configmaps")},
			{namespace: "ns", rule: rule(get, "apps", "deployments")},
		},
		// podadmin may do anything to pods in ns, and get /metrics.
		"podadmin": {
			{namespace: "ns", rule: rule(all, "", "pods")},
			{rule: rbacv1.PolicyRule{Verbs: get, NonResourceURLs: []string{"/metrics", "/logs/*"}}},
		},
		// admin holds everything, without being in system:masters.
		"admin": {
			{rule: rule(all, "*", "*")},
			{rule: rbacv1.PolicyRule{Verbs: all, NonResourceURLs: []string{"*"}}},
		},
	}
}

func TestRoleEscalatePermissionAllows(t *testing.T) {
	e := newEnv(t, roleGrants())
	r := role("ns", "r", rule(all, "*", "*"))
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("escalator"), r, nil)))
	if n := e.authz.calls.Load(); n != 1 {
		t.Fatalf("%d reviews, want only the escalate one", n)
	}
	// escalate is namespaced: it does not reach another namespace.
	r = role("other", "r", rule(get, "", "pods"))
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "roles", "other", "r", user("escalator"), r, nil)), http.StatusForbidden)
}

func TestRoleHoldingEveryRuleAllows(t *testing.T) {
	e := newEnv(t, roleGrants())
	r := role("ns", "r",
		rule([]string{"get", "list"}, "", "pods", "pods/log"),
		rule(readVerbs, "", "configmaps"),
		rbacv1.PolicyRule{Verbs: get, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, ResourceNames: []string{"web"}})
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), r, nil)))
	// escalate, then 2*2 + 3 + 1 permissions.
	if n := e.authz.calls.Load(); n != 9 {
		t.Fatalf("%d reviews, want 9", n)
	}
}

func TestRoleMissingOneRuleDenies(t *testing.T) {
	e := newEnv(t, roleGrants())
	r := role("ns", "r", rule(readVerbs, "", "pods"), rule([]string{"get", "list"}, "", "secrets"))
	res := e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), r, nil))
	wantDenied(t, res, http.StatusForbidden,
		`roles.rbac.authorization.k8s.io "r" is forbidden: user "holder" (groups=["dev"]) is attempting to grant RBAC permissions not currently held:`+
			"\n"+`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`)
	if strings.Contains(res.Status.Message, `"pods"`) {
		t.Fatalf("message names a held permission: %s", res.Status.Message)
	}
	if res.Status.Reason != metav1.StatusReasonForbidden || res.Status.Details == nil || res.Status.Details.Name != "r" {
		t.Fatalf("status %+v, want Forbidden with details naming r", res.Status)
	}
}

func TestRoleRulesAreCheckedInItsNamespace(t *testing.T) {
	e := newEnv(t, roleGrants())
	r := role("other", "r", rule(get, "", "pods"))
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "roles", "other", "r", user("holder"), r, nil)),
		http.StatusForbidden, `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`)
}

func TestRoleWildcards(t *testing.T) {
	cases := []struct {
		name    string
		user    string
		rule    rbacv1.PolicyRule
		allowed bool
		missing string
	}{
		{"verb wildcard held", "podadmin", rule(all, "", "pods"), true, ""},
		{"verb wildcard not held", "holder", rule(all, "", "pods"), false, `Verbs:["*"]`},
		{"resource wildcard not held", "podadmin", rule(get, "", "*"), false, `Resources:["*"]`},
		{"group wildcard not held", "podadmin", rule(get, "*", "pods"), false, `APIGroups:["*"]`},
		{"subresource of a wildcard holder", "podadmin", rule(get, "", "pods/exec"), false, `Resources:["pods/exec"]`},
		{"everything held by admin", "admin", rule(all, "*", "*"), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, roleGrants())
			res := e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user(tc.user), role("ns", "r", tc.rule), nil))
			if tc.allowed {
				wantAllowed(t, res)
				return
			}
			wantDenied(t, res, http.StatusForbidden, tc.missing)
		})
	}
}

func TestClusterRoleNonResourceURLs(t *testing.T) {
	cases := []struct {
		name    string
		urls    []string
		allowed bool
	}{
		{"exact", []string{"/metrics"}, true},
		{"under a prefix held", []string{"/logs/kubelet"}, true},
		{"the prefix itself", []string{"/logs/*"}, true},
		{"not held", []string{"/metrics", "/debug/pprof"}, false},
		{"wildcard not held", []string{"*"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, roleGrants())
			cr := clusterRole("c", rbacv1.PolicyRule{Verbs: get, NonResourceURLs: tc.urls})
			res := e.admit(t, attrs(admissionv1.Create, "clusterroles", "", "c", user("podadmin"), cr, nil))
			if tc.allowed {
				wantAllowed(t, res)
				return
			}
			wantDenied(t, res, http.StatusForbidden, `clusterroles.rbac.authorization.k8s.io "c" is forbidden`,
				`NonResourceURLs:["`+tc.urls[len(tc.urls)-1]+`"], Verbs:["get"]}`)
		})
	}
}

func TestClusterRoleNeedsClusterWidePermissions(t *testing.T) {
	e := newEnv(t, roleGrants())
	cr := clusterRole("c", rule(get, "", "pods"))
	// holder reads pods in ns only: a ClusterRole would grant them everywhere.
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "clusterroles", "", "c", user("holder"), cr, nil)),
		http.StatusForbidden, `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`)
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "clusterroles", "", "c", user("admin"), cr, nil)))
}

func TestClusterRoleAggregationNeedsFullAuthority(t *testing.T) {
	grants := roleGrants()
	grants["metricsonly"] = []grant{{rule: rbacv1.PolicyRule{Verbs: get, NonResourceURLs: []string{"/metrics"}}}}
	e := newEnv(t, grants)
	cr := clusterRole("agg")
	cr.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "clusterroles", "", "agg", user("metricsonly"), cr, nil)),
		http.StatusForbidden, `"agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`)
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "clusterroles", "", "agg", user("admin"), cr, nil)))

	// Removing the rule on update needs full authority too: it had gathered
	// rules the writer may not hold.
	plain := clusterRole("agg", rbacv1.PolicyRule{Verbs: get, NonResourceURLs: []string{"/metrics"}})
	wantDenied(t, e.admit(t, attrs(admissionv1.Update, "clusterroles", "", "agg", user("metricsonly"), plain, cr)),
		http.StatusForbidden, "aggregationRule")
	wantAllowed(t, e.admit(t, attrs(admissionv1.Update, "clusterroles", "", "agg", user("metricsonly"), plain, plain)))
}

func TestRoleUpdateIsCheckedUnlessOnlyGCFieldsChange(t *testing.T) {
	e := newEnv(t, roleGrants())
	old := role("ns", "r", rule(all, "*", "*"))
	old.ResourceVersion = "5"
	// Only the finalizers and owner references change: nothing is granted.
	gc := old.DeepCopy()
	gc.Finalizers = []string{"example.com/keep"}
	gc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u1"}}
	gc.ResourceVersion = "6"
	wantAllowed(t, e.admit(t, attrs(admissionv1.Update, "roles", "ns", "r", user("nobody"), gc, old)))
	if n := e.authz.calls.Load(); n != 0 {
		t.Fatalf("%d reviews for a GC-only update, want 0", n)
	}
	// A label change is not a GC change: the unchanged rules are checked
	// again, as kube checks them on every update.
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"a": "b"}
	wantDenied(t, e.admit(t, attrs(admissionv1.Update, "roles", "ns", "r", user("holder"), labelled, old)),
		http.StatusForbidden, `Verbs:["*"]`)
	// escalate on the role by name counts on update.
	grants := roleGrants()
	grants["named"] = []grant{{namespace: "ns", rule: rbacv1.PolicyRule{Verbs: []string{"escalate"},
		APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles"}, ResourceNames: []string{"r"}}}}
	e = newEnv(t, grants)
	wantAllowed(t, e.admit(t, attrs(admissionv1.Update, "roles", "ns", "r", user("named"), labelled, old)))
	// ... but not on create, where kube's request has no name yet.
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("named"), labelled, nil)), http.StatusForbidden)
}

func TestRoleDryRunIsChecked(t *testing.T) {
	e := newEnv(t, roleGrants())
	a := attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), role("ns", "r", rule(get, "", "secrets")), nil)
	a.DryRun = true
	wantDenied(t, e.admit(t, a), http.StatusForbidden, "secrets")
}
