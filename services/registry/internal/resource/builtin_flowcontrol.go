package resource

import (
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
)

// flowcontrol is flowcontrol.apiserver.k8s.io/v1, API Priority and
// Fairness' configuration.
func flowcontrol() []*Info {
	const g = "flowcontrol.apiserver.k8s.io"
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "flowschemas", Kind: "FlowSchema",
			Singular: "flowschema", StatusSubresource: true},
			flowschema.Strategy, status(flowschema.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "prioritylevelconfigurations", Kind: "PriorityLevelConfiguration",
			Singular: "prioritylevelconfiguration", StatusSubresource: true},
			prioritylevelconfiguration.Strategy, status(prioritylevelconfiguration.StatusStrategy)),
	}
}
