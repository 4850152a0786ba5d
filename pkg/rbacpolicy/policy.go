// Package rbacpolicy is what kube knows of RBAC policy besides deciding
// requests: its bootstrap policy for users (Defaults: the ClusterRoles and
// ClusterRoleBindings a fresh cluster holds, which the registry writes on
// start-up as kube-apiserver does) and ClusterRole aggregation
// (Aggregate), which authz applies when it loads the policy.
package rbacpolicy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations kube puts on its bootstrap policy.
const (
	// BootstrappingLabel marks the objects of the bootstrap policy.
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	// BootstrappingValue is BootstrappingLabel's value.
	BootstrappingValue = "rbac-defaults"

	// AggregateToAdmin, AggregateToEdit and AggregateToView are the labels
	// that add a ClusterRole's rules to admin, edit and view.
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// Well-known groups the bootstrap policy binds; authentication adds them.
const (
	// SystemAuthenticated is the group of every authenticated user.
	SystemAuthenticated = "system:authenticated"
	// SystemUnauthenticated is the group of the anonymous user.
	SystemUnauthenticated = "system:unauthenticated"
)

// Verb sets of kube's bootstrap policy.
var (
	readVerbs      = []string{"get", "list", "watch"}
	writeVerbs     = []string{"create", "delete", "deletecollection", "patch", "update"}
	readWriteVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
)

// Defaults returns the RBAC objects a fresh kube cluster has for users
// (as opposed to its own components): cluster-admin, admin, edit and view
// with the system:aggregate-to-* roles that feed them, system:discovery,
// system:basic-user and system:public-info-viewer, and the bindings that
// give them to system:masters, to every authenticated user and to
// anonymous requests. admin, edit and view carry their aggregationRule and
// the rules aggregation gives them, as kube's controller leaves them.
// Every call returns new objects the caller may change.
func Defaults() ([]rbacv1.ClusterRole, []rbacv1.ClusterRoleBinding) {
	roles := []rbacv1.ClusterRole{
		clusterRole("cluster-admin", nil,
			rule(resources("*", "*"), "*"),
			rule(urls("*"), "*"),
		),
		aggregatedRole("admin", nil, AggregateToAdmin),
		aggregatedRole("edit", map[string]string{AggregateToAdmin: "true"}, AggregateToEdit),
		aggregatedRole("view", map[string]string{AggregateToEdit: "true"}, AggregateToView),
		clusterRole("system:aggregate-to-admin", map[string]string{AggregateToAdmin: "true"}, aggregateToAdminRules()...),
		clusterRole("system:aggregate-to-edit", map[string]string{AggregateToEdit: "true"}, aggregateToEditRules()...),
		clusterRole("system:aggregate-to-view", map[string]string{AggregateToView: "true"}, aggregateToViewRules()...),
		clusterRole("system:basic-user", nil,
			rule(resources("authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectrulesreviews"), "create"),
			rule(resources("authentication.k8s.io", "selfsubjectreviews"), "create"),
		),
		clusterRole("system:discovery", nil,
			rule(urls("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
				"/readyz", "/version", "/version/"), "get"),
		),
		clusterRole("system:public-info-viewer", nil,
			rule(urls("/healthz", "/livez", "/readyz", "/version", "/version/"), "get"),
		),
		clusterRole("system:monitoring", nil,
			rule(urls("/healthz", "/healthz/*", "/livez", "/livez/*", "/readyz", "/readyz/*", "/metrics", "/metrics/slis"), "get"),
		),
	}
	// Fill admin, edit and view as the aggregation controller would, so
	// objects written from this list read back as on a kube cluster.
	effective := Aggregate(roles)
	for i := range roles {
		if roles[i].AggregationRule == nil {
			continue
		}
		// Copies, so changing admin's rules does not change the roles
		// aggregated into it.
		for _, r := range effective[roles[i].Name] {
			roles[i].Rules = append(roles[i].Rules, *r.DeepCopy())
		}
	}
	bindings := []rbacv1.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", "system:masters"),
		clusterRoleBinding("system:basic-user", SystemAuthenticated),
		clusterRoleBinding("system:discovery", SystemAuthenticated),
		clusterRoleBinding("system:public-info-viewer", SystemAuthenticated, SystemUnauthenticated),
		clusterRoleBinding("system:monitoring", "system:monitoring"),
	}
	return roles, bindings
}

// aggregateToAdminRules are what admin has beyond edit: managing roles and
// bindings in its namespace.
func aggregateToAdminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(resources("authorization.k8s.io", "localsubjectaccessreviews"), "create"),
		rule(resources("rbac.authorization.k8s.io", "rolebindings", "roles"), readWriteVerbs...),
	}
}

// aggregateToEditRules are what edit has beyond view: writing workloads and
// reading the resources view leaves out because they escalate (secrets,
// exec, attach, proxy).
func aggregateToEditRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(resources("", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"), readVerbs...),
		rule(resources("", "serviceaccounts"), "impersonate"),
		rule(resources("", "pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"), writeVerbs...),
		rule(resources("", "pods/eviction"), "create"),
		rule(resources("", "configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
			"replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"), writeVerbs...),
		rule(resources("", "serviceaccounts/token"), "create"),
		rule(resources("apps", "daemonsets", "deployments", "deployments/rollback", "deployments/scale",
			"replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"), writeVerbs...),
		rule(resources("autoscaling", "horizontalpodautoscalers"), writeVerbs...),
		rule(resources("batch", "cronjobs", "jobs"), writeVerbs...),
		rule(resources("extensions", "daemonsets", "deployments", "deployments/rollback", "deployments/scale",
			"ingresses", "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"), writeVerbs...),
		rule(resources("policy", "poddisruptionbudgets"), writeVerbs...),
		rule(resources("networking.k8s.io", "ingresses", "networkpolicies"), writeVerbs...),
		rule(resources("coordination.k8s.io", "leases"), readWriteVerbs...),
	}
}

// aggregateToViewRules are read access to a namespace's non-escalating
// resources.
func aggregateToViewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(resources("", "configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
			"pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
			"services/status"), readVerbs...),
		rule(resources("", "bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
			"replicationcontrollers/status", "resourcequotas", "resourcequotas/status"), readVerbs...),
		// Reading namespaces in a namespace means reading that namespace:
		// how a user learns which namespaces it has access to.
		rule(resources("", "namespaces"), readVerbs...),
		rule(resources("discovery.k8s.io", "endpointslices"), readVerbs...),
		rule(resources("apps", "controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
			"deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status",
			"statefulsets", "statefulsets/scale", "statefulsets/status"), readVerbs...),
		rule(resources("autoscaling", "horizontalpodautoscalers", "horizontalpodautoscalers/status"), readVerbs...),
		rule(resources("batch", "cronjobs", "cronjobs/status", "jobs", "jobs/status"), readVerbs...),
		rule(resources("extensions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
			"deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
			"replicasets/scale", "replicasets/status", "replicationcontrollers/scale"), readVerbs...),
		rule(resources("policy", "poddisruptionbudgets", "poddisruptionbudgets/status"), readVerbs...),
		rule(resources("networking.k8s.io", "ingresses", "ingresses/status", "networkpolicies"), readVerbs...),
	}
}

// target is what a rule applies to: resources of one API group, or
// non-resource URLs.
type target func(*rbacv1.PolicyRule)

// resources targets resources of one API group.
func resources(group string, names ...string) target {
	return func(r *rbacv1.PolicyRule) {
		r.APIGroups = []string{group}
		r.Resources = names
	}
}

// urls targets non-resource URLs.
func urls(paths ...string) target {
	return func(r *rbacv1.PolicyRule) { r.NonResourceURLs = paths }
}

// rule grants verbs on t.
func rule(t target, verbs ...string) rbacv1.PolicyRule {
	r := rbacv1.PolicyRule{Verbs: append([]string(nil), verbs...)}
	t(&r)
	return r
}

// bootstrapMeta is the metadata kube gives a bootstrap object: its label,
// and the annotation that lets the API server reconcile it on start-up.
func bootstrapMeta(name string, labels map[string]string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{BootstrappingLabel: BootstrappingValue},
		Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"},
	}
	for k, v := range labels {
		meta.Labels[k] = v
	}
	return meta
}

// clusterRole is a bootstrap ClusterRole with the given rules.
func clusterRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: bootstrapMeta(name, labels),
		Rules:      rules,
	}
}

// aggregatedRole is a bootstrap ClusterRole gathering the ClusterRoles
// labelled aggregateLabel=true.
func aggregatedRole(name string, labels map[string]string, aggregateLabel string) rbacv1.ClusterRole {
	r := clusterRole(name, labels)
	r.AggregationRule = &rbacv1.AggregationRule{
		ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{aggregateLabel: "true"}}},
	}
	return r
}

// clusterRoleBinding binds the ClusterRole of the same name to groups.
func clusterRoleBinding(name string, groups ...string) rbacv1.ClusterRoleBinding {
	b := rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: bootstrapMeta(name, nil),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
	}
	for _, g := range groups {
		b.Subjects = append(b.Subjects, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: g})
	}
	return b
}
