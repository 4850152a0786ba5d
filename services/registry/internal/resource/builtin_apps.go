package resource

import (
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
)

// apps is apps/v1, the workload controllers' objects. apps/v1 registers no
// field label conversions, so kube takes field selectors on
// metadata.name and metadata.namespace only (ReplicaSet's status.replicas
// was apps/v1beta2's).
func apps() []*Info {
	const g = "apps"
	all := []string{"all"}
	// scale is where a workload with a replica count and a LabelSelector
	// keeps what its autoscaling/v1 Scale shows.
	scale := func() *Scale {
		return &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"}
	}
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "deployments", Kind: "Deployment", Singular: "deployment", Namespaced: true,
			ShortNames: []string{"deploy"}, Categories: all, StatusSubresource: true, Scale: scale()},
			deployment.Strategy, status(deployment.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Singular: "replicaset", Namespaced: true,
			ShortNames: []string{"rs"}, Categories: all, StatusSubresource: true, Scale: scale()},
			replicaset.Strategy, status(replicaset.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Singular: "statefulset", Namespaced: true,
			ShortNames: []string{"sts"}, Categories: all, StatusSubresource: true, Scale: scale()},
			statefulset.Strategy, status(statefulset.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Singular: "daemonset", Namespaced: true,
			ShortNames: []string{"ds"}, Categories: all, StatusSubresource: true},
			daemonset.Strategy, status(daemonset.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "controllerrevisions", Kind: "ControllerRevision", Singular: "controllerrevision",
			Namespaced: true},
			controllerrevision.Strategy, nil),
	}
}
