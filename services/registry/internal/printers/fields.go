package printers

import (
	"time"
)

// Objects reach the printers as decoded JSON in which any field may be
// missing, null or of the wrong type. These accessors answer the zero value
// in all those cases, so a malformed object still gets a row instead of
// failing the whole list.

// field walks path through nested maps.
func field(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// str is the string at path, or "".
func str(obj map[string]any, path ...string) string {
	s, _ := field(obj, path...).(string)
	return s
}

// boolean is the bool at path, or false.
func boolean(obj map[string]any, path ...string) bool {
	b, _ := field(obj, path...).(bool)
	return b
}

// object is the map at path, or nil. A present but empty map is returned
// non-nil, because kube tells "terminated: {}" apart from no terminated.
func object(obj map[string]any, path ...string) map[string]any {
	m, _ := field(obj, path...).(map[string]any)
	return m
}

// list is the array at path, or nil.
func list(obj map[string]any, path ...string) []any {
	l, _ := field(obj, path...).([]any)
	return l
}

// objects is the array of maps at path, skipping entries that are not maps.
func objects(obj map[string]any, path ...string) []map[string]any {
	var out []map[string]any
	for _, e := range list(obj, path...) {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// strs is the array of strings at path, skipping entries that are not
// strings.
func strs(obj map[string]any, path ...string) []string {
	var out []string
	for _, e := range list(obj, path...) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// timestamp is the RFC 3339 time at path, or the zero time. Go's parser
// accepts fractional seconds without the layout naming them, so this reads
// both metav1.Time and metav1.MicroTime values.
func timestamp(obj map[string]any, path ...string) time.Time {
	s := str(obj, path...)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
