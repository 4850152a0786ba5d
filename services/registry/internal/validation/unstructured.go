package validation

// Helpers for defaulting in place on the unstructured map. Defaulting works
// on the map rather than on a typed round trip so that fields the typed
// struct does not know survive, and so that nothing but the defaults is
// added (a round trip would add every zero-valued non-omitempty field).

// isUnset reports whether a field counts as absent for defaulting: missing,
// null, or the empty string. Kube's decoder turns all three into the zero
// value its defaulters test for, so `restartPolicy: ""` is defaulted too.
func isUnset(m map[string]any, key string) bool {
	v, ok := m[key]
	return !ok || v == nil || v == ""
}

// setDefault sets m[key] to v when the field is unset. m may be nil.
func setDefault(m map[string]any, key string, v any) {
	if m != nil && isUnset(m, key) {
		m[key] = v
	}
}

// mapAt returns the object at m[key], or nil when it is absent or not an
// object. m may be nil.
func mapAt(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	child, _ := m[key].(map[string]any)
	return child
}

// ensureMap returns the object at m[key], creating an empty one when the
// field is absent or null. It returns nil when m is nil or the field holds
// something else, leaving the wrong type for validation to report.
func ensureMap(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	if v, ok := m[key]; ok && v != nil {
		child, _ := v.(map[string]any)
		return child
	}
	child := map[string]any{}
	m[key] = child
	return child
}
