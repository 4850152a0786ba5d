package customresource

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// listTypeErrors enforces x-kubernetes-list-type as kube does: the items
// of a set are unique, and so are the keys (x-kubernetes-list-map-keys) of
// a map-list's items.
func listTypeErrors(x any, n *node, p *field.Path) field.ErrorList {
	if n == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			errs = append(errs, listTypeErrors(v, n.child(k), childPath(p, k))...)
		}
	case []any:
		errs = append(errs, duplicates(x, n, p)...)
		for i, v := range x {
			errs = append(errs, listTypeErrors(v, n.item(), indexPath(p, i))...)
		}
	}
	return errs
}

// duplicates reports the items of a set or map-list that repeat an
// earlier one.
func duplicates(list []any, n *node, p *field.Path) field.ErrorList {
	if n.props.XListType == nil {
		return nil
	}
	var key func(any) any
	switch *n.props.XListType {
	case "set":
		key = func(v any) any { return v }
	case "map":
		key = func(v any) any {
			m, _ := v.(map[string]any)
			k := map[string]any{}
			for _, name := range n.props.XListMapKeys {
				if val, ok := m[name]; ok {
					k[name] = val
				}
			}
			return k
		}
	default:
		return nil
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, v := range list {
		k := key(v)
		b, _ := json.Marshal(k)
		if seen[string(b)] {
			errs = append(errs, field.Duplicate(indexPath(p, i), k))
			continue
		}
		seen[string(b)] = true
	}
	return errs
}
