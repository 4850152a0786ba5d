package resource

import (
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
)

// policy is policy/v1: PodDisruptionBudgets.
func policy() []*Info {
	return []*Info{
		kube(&Info{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget",
			Singular: "poddisruptionbudget", Namespaced: true, ShortNames: []string{"pdb"}, StatusSubresource: true},
			poddisruptionbudget.Strategy, status(poddisruptionbudget.StatusStrategy)),
	}
}
