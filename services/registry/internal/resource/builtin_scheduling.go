package resource

// scheduling is scheduling.k8s.io/v1: PriorityClasses.
func scheduling() []*Info {
	return nil
}
