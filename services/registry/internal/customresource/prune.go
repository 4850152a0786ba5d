package customresource

import (
	"sort"
	"strconv"
)

// metaFields are kept at the root of an object and of every embedded
// resource whatever the schema says: the generic handler checks them.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// Prune removes from obj every field its schema does not specify, except
// where x-kubernetes-preserve-unknown-fields keeps them, as kube's pruning
// does. It returns the paths it removed ("spec.foo", "spec.list[0].bar"),
// sorted, for fieldValidation to report.
func (s *Schema) Prune(obj map[string]any) []string {
	p := &pruner{}
	p.object(obj, s.root, true)
	sort.Strings(p.removed)
	return p.removed
}

// pruner walks a value with its schema, recording what it removes.
type pruner struct {
	path    []string
	removed []string
}

func (p *pruner) value(x any, n *node) {
	switch x := x.(type) {
	case map[string]any:
		p.object(x, n, n.embedded())
	case []any:
		for i, v := range x {
			p.push("[" + strconv.Itoa(i) + "]")
			p.value(v, n.item())
			p.pop()
		}
	}
}

// object prunes a map; resource says it is an object with TypeMeta and
// ObjectMeta (the root, or an embedded resource).
func (p *pruner) object(x map[string]any, n *node, resource bool) {
	for k, v := range x {
		if resource && metaFields[k] {
			continue
		}
		if c := n.child(k); c != nil {
			p.push("." + k)
			p.value(v, c)
			p.pop()
			continue
		}
		if n.preserves() {
			continue
		}
		p.removed = append(p.removed, p.at(k))
		delete(x, k)
	}
}

func (p *pruner) push(s string) { p.path = append(p.path, s) }
func (p *pruner) pop()          { p.path = p.path[:len(p.path)-1] }

// at is the dotted path of key k under the current path.
func (p *pruner) at(k string) string {
	out := ""
	for _, s := range p.path {
		out += s
	}
	out += "." + k
	return out[1:]
}
