package admission

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceStates tells the state of namespaces, for rules' Namespace
// conditions. The registry implements it over its own storage, so a rule
// narrowed to, say, namespaces that hold a ResourceQuota is checked
// against the same state the write is about to be stored in, rather than
// against an admission service's informer, which may lag behind.
type NamespaceStates interface {
	// Phase is the namespace's status.phase; false when it is not known.
	Phase(ctx context.Context, namespace string) (string, bool)
	// Holds reports whether the namespace holds at least one object of
	// gr; known is false when that cannot be told.
	Holds(ctx context.Context, namespace string, gr metav1.GroupResource) (holds, known bool)
}

// mayBeIn reports whether namespace ns may be in the state c describes:
// false only when states tell for certain that it is not, so that an
// unknown state always asks.
func (c *NamespaceCondition) mayBeIn(ctx context.Context, states NamespaceStates, ns string) bool {
	if c == nil || states == nil || ns == "" {
		return true
	}
	if len(c.Phases) > 0 {
		if phase, ok := states.Phase(ctx, ns); ok && !slices.Contains(c.Phases, phase) {
			return false
		}
	}
	if len(c.Holding) == 0 {
		return true
	}
	return slices.ContainsFunc(c.Holding, func(gr metav1.GroupResource) bool {
		holds, known := states.Holds(ctx, ns, gr)
		return holds || !known
	})
}
