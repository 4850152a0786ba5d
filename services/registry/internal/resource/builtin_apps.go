package resource

import (
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
)

// apps is apps/v1, the workload controllers' objects.
func apps() []*Info {
	return []*Info{
		kube(&Info{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Singular: "deployment", Namespaced: true,
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, StatusSubresource: true,
			Scale: &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"}},
			deployment.Strategy, status(deployment.StatusStrategy)),
	}
}
