package resource

import (
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
)

// discovery is discovery.k8s.io/v1: EndpointSlices.
func discovery() []*Info {
	return []*Info{
		kube(&Info{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice",
			Singular: "endpointslice", Namespaced: true},
			endpointslice.Strategy, nil),
	}
}
