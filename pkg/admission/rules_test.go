package admission

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rule(operations []admissionregistrationv1.OperationType, groups, versions, resources []string, scope admissionregistrationv1.ScopeType) Rule {
	r := Rule{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: operations,
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources}}}
	if scope != "" {
		r.Scope = &scope
	}
	return r
}

func ops(o ...admissionregistrationv1.OperationType) []admissionregistrationv1.OperationType {
	return o
}
func strs(s ...string) []string { return s }

func req(op admissionv1.Operation, group, version, resource, sub, namespace string) *Attributes {
	gvr := metav1.GroupVersionResource{Group: group, Version: version, Resource: resource}
	return &Attributes{Operation: op, Resource: gvr, SubResource: sub, RequestResource: gvr, RequestSubResource: sub, Namespace: namespace}
}

const (
	opCreate = admissionregistrationv1.Create
	opUpdate = admissionregistrationv1.Update
	opDelete = admissionregistrationv1.Delete
	opAll    = admissionregistrationv1.OperationAll
)

func TestMatches(t *testing.T) {
	podsCreate := rule(ops(opCreate), strs(""), strs("v1"), strs("pods"), "")
	for _, tc := range []struct {
		name string
		rule Rule
		req  *Attributes
		want bool
	}{
		{"exact", podsCreate, req(admissionv1.Create, "", "v1", "pods", "", "ns"), true},
		{"other operation", podsCreate, req(admissionv1.Update, "", "v1", "pods", "", "ns"), false},
		{"other resource", podsCreate, req(admissionv1.Create, "", "v1", "configmaps", "", "ns"), false},
		{"other group", podsCreate, req(admissionv1.Create, "apps", "v1", "pods", "", "ns"), false},
		{"other version", podsCreate, req(admissionv1.Create, "", "v2", "pods", "", "ns"), false},
		{"subresource not matched by bare resource", podsCreate, req(admissionv1.Create, "", "v1", "pods", "binding", "ns"), false},
		{"operation *", rule(ops(opAll), strs(""), strs("v1"), strs("pods"), ""), req(admissionv1.Delete, "", "v1", "pods", "", "ns"), true},
		{"operations list", rule(ops(opCreate, opUpdate), strs(""), strs("v1"), strs("pods"), ""), req(admissionv1.Update, "", "v1", "pods", "", "ns"), true},
		{"group and version *", rule(ops(opCreate), strs("*"), strs("*"), strs("pods"), ""), req(admissionv1.Create, "x.io", "v9", "pods", "", "ns"), true},
		{"* is any resource", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), ""), req(admissionv1.Create, "", "v1", "secrets", "", "ns"), true},
		{"* is no subresource", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), ""), req(admissionv1.Create, "", "v1", "pods", "eviction", "ns"), false},
		{"*/* is subresources too", rule(ops(opCreate), strs("*"), strs("*"), strs("*/*"), ""), req(admissionv1.Create, "", "v1", "pods", "eviction", "ns"), true},
		{"r/* is r", rule(ops(opCreate), strs(""), strs("v1"), strs("pods/*"), ""), req(admissionv1.Create, "", "v1", "pods", "", "ns"), true},
		{"r/* is r/s", rule(ops(opCreate), strs(""), strs("v1"), strs("pods/*"), ""), req(admissionv1.Create, "", "v1", "pods", "binding", "ns"), true},
		{"r/* is not q/s", rule(ops(opCreate), strs(""), strs("v1"), strs("pods/*"), ""), req(admissionv1.Create, "", "v1", "services", "status", "ns"), false},
		{"*/s", rule(ops(opUpdate), strs("*"), strs("*"), strs("*/scale"), ""), req(admissionv1.Update, "apps", "v1", "deployments", "scale", "ns"), true},
		{"*/s is not */t", rule(ops(opUpdate), strs("*"), strs("*"), strs("*/scale"), ""), req(admissionv1.Update, "apps", "v1", "deployments", "status", "ns"), false},
		{"r/s exact", rule(ops(opUpdate), strs(""), strs("v1"), strs("pods/status"), ""), req(admissionv1.Update, "", "v1", "pods", "status", "ns"), true},
		{"r/s is not r", rule(ops(opUpdate), strs(""), strs("v1"), strs("pods/status"), ""), req(admissionv1.Update, "", "v1", "pods", "", "ns"), false},
		{"Namespaced: namespaced object", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.NamespacedScope), req(admissionv1.Create, "", "v1", "pods", "", "ns"), true},
		{"Namespaced: cluster object", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.NamespacedScope), req(admissionv1.Create, "rbac.authorization.k8s.io", "v1", "clusterroles", "", ""), false},
		// A namespace's requests carry its name as namespace, yet it is
		// cluster-scoped.
		{"Namespaced: namespace", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.NamespacedScope), req(admissionv1.Create, "", "v1", "namespaces", "", "ns"), false},
		{"Cluster: namespace", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.ClusterScope), req(admissionv1.Create, "", "v1", "namespaces", "", "ns"), true},
		{"Cluster: cluster object", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.ClusterScope), req(admissionv1.Create, "", "v1", "nodes", "", ""), true},
		{"Cluster: namespaced object", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.ClusterScope), req(admissionv1.Create, "", "v1", "pods", "", "ns"), false},
		{"*: anything", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), admissionregistrationv1.AllScopes), req(admissionv1.Create, "", "v1", "nodes", "", ""), true},
		{"unknown scope", rule(ops(opCreate), strs("*"), strs("*"), strs("*"), "Galaxy"), req(admissionv1.Create, "", "v1", "pods", "", "ns"), false},
		{"no rule", Rule{}, req(admissionv1.Create, "", "v1", "pods", "", "ns"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Matches([]Rule{tc.rule}, tc.req); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
}

// A rule matching the resource the client asked for matches, as kube's
// Equivalent match policy calls a webhook about a request through another
// version.
func TestMatchesRequestResource(t *testing.T) {
	a := req(admissionv1.Create, "apps", "v1", "deployments", "", "ns")
	a.RequestResource = metav1.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "deployments"}
	if !Matches([]Rule{rule(ops(opCreate), strs("extensions"), strs("*"), strs("deployments"), "")}, a) {
		t.Error("a rule for the requested resource did not match")
	}
	if Matches([]Rule{rule(ops(opCreate), strs("batch"), strs("*"), strs("jobs"), "")}, a) {
		t.Error("a rule for neither resource matched")
	}
}

func TestMatchesAnyRule(t *testing.T) {
	rules := []Rule{
		rule(ops(opCreate), strs(""), strs("v1"), strs("pods"), ""),
		rule(ops(opDelete), strs(""), strs("v1"), strs("namespaces"), ""),
	}
	if !Matches(rules, req(admissionv1.Delete, "", "v1", "namespaces", "", "x")) {
		t.Error("the second rule did not match")
	}
	if Matches(nil, req(admissionv1.Create, "", "v1", "pods", "", "ns")) {
		t.Error("no rules matched a request")
	}
}

func TestRulesFor(t *testing.T) {
	r := Rules{Mutating: []Rule{{}}, Validating: []Rule{{}, {}}}
	if len(r.For(PhaseMutating)) != 1 || len(r.For(PhaseValidating)) != 2 {
		t.Errorf("For: %d mutating, %d validating", len(r.For(PhaseMutating)), len(r.For(PhaseValidating)))
	}
}
