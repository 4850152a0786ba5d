package resource

import (
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
)

// coordination is coordination.k8s.io/v1.
func coordination() []*Info {
	return []*Info{
		kube(&Info{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Singular: "lease", Namespaced: true},
			lease.Strategy, nil),
	}
}

// rbac is rbac.authorization.k8s.io/v1.
func rbac() []*Info {
	const g = "rbac.authorization.k8s.io"
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "roles", Kind: "Role", Singular: "role", Namespaced: true},
			role.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Singular: "rolebinding", Namespaced: true},
			rolebinding.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", Singular: "clusterrole"},
			clusterrole.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", Singular: "clusterrolebinding"},
			clusterrolebinding.Strategy, nil),
	}
}
