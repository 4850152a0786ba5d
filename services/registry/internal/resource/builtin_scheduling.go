package resource

import (
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

// scheduling is scheduling.k8s.io/v1: PriorityClasses. Kube also refuses
// to delete the system priority classes (403), which is not done here.
func scheduling() []*Info {
	return []*Info{
		kube(&Info{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses", Kind: "PriorityClass",
			Singular: "priorityclass", ShortNames: []string{"pc"}},
			priorityclass.Strategy, nil),
	}
}
