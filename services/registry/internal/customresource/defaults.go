package customresource

import (
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Default fills in, as kube does, every absent field (or null field that
// may not be null) whose schema has a default, then defaults inside every
// field present, defaults included.
func (s *Schema) Default(obj map[string]any) { defaultValue(obj, s.root) }

func defaultValue(x any, n *node) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, c := range n.properties {
			if c.props.Default == nil {
				continue
			}
			if v, ok := x[k]; !ok || (v == nil && !c.props.Nullable) {
				if d, ok := defaultOf(c); ok {
					x[k] = d
				}
			}
		}
		for k, v := range x {
			defaultValue(v, n.child(k))
		}
	case []any:
		for _, v := range x {
			defaultValue(v, n.item())
		}
	}
}

// defaultOf decodes a node's default afresh, so that no two objects share
// it.
func defaultOf(n *node) (any, bool) {
	var v any
	if err := utiljson.Unmarshal(n.props.Default.Raw, &v); err != nil {
		return nil, false
	}
	return v, true
}
