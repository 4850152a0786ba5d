package resource

import (
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
)

// node is node.k8s.io/v1: RuntimeClasses.
func node() []*Info {
	return []*Info{
		kube(&Info{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses", Kind: "RuntimeClass", Singular: "runtimeclass"},
			runtimeclass.Strategy, nil),
	}
}
