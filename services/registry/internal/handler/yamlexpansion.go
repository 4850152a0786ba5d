package handler

import (
	"bytes"
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// checkYAMLExpansion refuses YAML whose aliases would expand to more than
// limit bytes of JSON, with 413, before anything expands them. A body is
// bounded in size, but each alias repeats its anchor's whole value: a
// 3 MiB body repeating a 1 MiB string a hundred thousand times is 100 GB of
// JSON, and nested anchors grow geometrically. The YAML decoder's own
// alias check counts nodes, not bytes, so it lets such a body through.
//
// The parse keeps aliases as references, so measuring costs one pass over
// the body however large the expansion would be. A body without '*' has
// no alias and is not parsed here at all.
func checkYAMLExpansion(body []byte, limit int) error {
	if !bytes.Contains(body, []byte("*")) {
		return nil
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(body, &doc); err != nil {
		return apierrors.NewBadRequest("the body is not valid YAML: " + err.Error())
	}
	m := expansion{limit: limit, sizes: map[*yamlv3.Node]int{}}
	if n := m.size(&doc); n > limit {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the YAML body expands its aliases to more than %d bytes", limit))
	}
	return nil
}

// expansion measures what nodes become as JSON, roughly: each scalar
// quoted, each collection bracketed and separated. Sizes saturate just
// over the limit, so nested aliases cannot overflow the count.
type expansion struct {
	limit int
	sizes map[*yamlv3.Node]int // a node an alias names is measured once
}

func (m *expansion) size(n *yamlv3.Node) int {
	if n == nil {
		return 0
	}
	if s, ok := m.sizes[n]; ok {
		return s
	}
	// An anchor whose value contains an alias to itself would expand
	// forever: while a node is measured, it counts as over the limit.
	m.sizes[n] = m.limit + 1
	var s int
	switch n.Kind {
	case yamlv3.AliasNode:
		s = m.size(n.Alias)
	case yamlv3.ScalarNode:
		s = len(n.Value) + 2
	default: // documents, sequences and mappings
		s = 2
		for _, c := range n.Content {
			s = m.add(s, m.size(c)+1)
		}
	}
	m.sizes[n] = s
	return s
}

// add is a+b, saturating at limit+1.
func (m *expansion) add(a, b int) int {
	if a > m.limit-b {
		return m.limit + 1
	}
	return a + b
}
