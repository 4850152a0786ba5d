package resource

import (
	"errors"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	schedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

// scheduling is scheduling.k8s.io/v1: PriorityClasses, of which the system
// ones are not deleted one by one, as kube refuses (its deletecollection
// does not ask).
func scheduling() []*Info {
	return []*Info{
		kube(&Info{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses", Kind: "PriorityClass",
			Singular: "priorityclass", ShortNames: []string{"pc"}, Refuse: keepSystemPriorityClasses},
			priorityclass.Strategy, nil),
	}
}

// keepSystemPriorityClasses is kube's 403 to a delete of a system
// PriorityClass.
func keepSystemPriorityClasses(verb, name string) error {
	if verb == "delete" && slices.Contains(schedulingv1.SystemPriorityClassNames(), name) {
		return apierrors.NewForbidden(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, name,
			errors.New("this is a system priority class and cannot be deleted"))
	}
	return nil
}
