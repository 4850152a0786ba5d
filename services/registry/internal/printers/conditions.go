package printers

// Several tables print a status condition. Like kube's helpers they look at
// the first condition of a type and ignore any later one.

// condition is the object's first status condition of the given type, or
// nil.
func condition(obj map[string]any, condType string) map[string]any {
	for _, c := range objects(obj, "status", "conditions") {
		if str(c, "type") == condType {
			return c
		}
	}
	return nil
}

// conditionTrue reports whether the object's first condition of the type
// has status True.
func conditionTrue(obj map[string]any, condType string) bool {
	c := condition(obj, condType)
	return c != nil && str(c, "status") == "True"
}
