package kubeobject

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Widen are rules under matchPolicy Equivalent as a plugin publishes them
// (the requests the registry asks it about): each in any version, and for
// every resource a rule names, a rule naming its equivalents in other
// groups (core Events for events.k8s.io ones and back). Until discovery
// is read, every group, which asks about more, never less.
func (e *Equivalents) Widen(rules []admission.Rule) []admission.Rule {
	out := make([]admission.Rule, 0, len(rules))
	for _, r := range rules {
		r.APIVersions = []string{"*"}
		out = append(out, r)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.load()
	if !e.loaded {
		return plugin.AnyGroup(out)
	}
	for _, r := range out[:len(rules)] {
		for _, bySub := range e.byKey {
			for sub, set := range bySub {
				out = append(out, others(r, set, sub)...)
			}
		}
	}
	return out
}

// others are rules like r naming the members of set, one storage's
// resources (one per version), that r does not name itself, when it names
// one of them.
func others(r admission.Rule, set []schema.GroupVersionResource, sub string) []admission.Rule {
	names := func(gvr schema.GroupVersionResource) bool {
		return admission.MatchesResource(r, metav1.GroupVersionResource(gvr), sub)
	}
	if !slices.ContainsFunc(set, names) {
		return nil
	}
	var out []admission.Rule
	added := map[schema.GroupResource]bool{}
	for _, gvr := range set {
		if names(gvr) || added[gvr.GroupResource()] {
			continue
		}
		added[gvr.GroupResource()] = true
		o := admission.Rule{RuleWithOperations: *r.DeepCopy(), Namespace: r.Namespace}
		o.APIGroups, o.Resources = []string{gvr.Group}, []string{resourceName(gvr.Resource, sub)}
		out = append(out, o)
	}
	return out
}

func resourceName(resource, sub string) string {
	if sub == "" {
		return resource
	}
	return resource + "/" + sub
}
