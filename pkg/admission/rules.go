package admission

import (
	"context"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RulesPath is where kubesplit's admission service publishes its Rules, so
// that the registry need not call it about writes no plugin looks at.
const RulesPath = "/admission/v1/rules"

// Rule is one set of requests an admitter wants to be asked about, as a
// webhook configuration's rules say it in kube, optionally narrowed by the
// state of the request's namespace, which only the caller (the registry,
// which owns that state) can check at the moment of the write.
type Rule struct {
	admissionregistrationv1.RuleWithOperations

	// Namespace, when set, narrows the rule to requests in namespaces in
	// the state it describes. Callers that cannot check it treat the rule
	// as if it were not set (they ask about more, never less).
	Namespace *NamespaceCondition `json:"namespace,omitempty"`
}

// NamespaceCondition is a state of the request's namespace; a namespace is
// in it when it satisfies every field that is set.
type NamespaceCondition struct {
	// Phases: the namespace is in one of these phases (Terminating, to
	// refuse new objects in a namespace being deleted).
	Phases []string `json:"phases,omitempty"`
	// Holding: the namespace holds at least one object of one of these
	// resources (resourcequotas, for a plugin that charges quotas).
	Holding []metav1.GroupResource `json:"holding,omitempty"`
}

// Rules are the requests each phase wants, as the rules of kube's mutating
// and validating webhook configurations: a request no rule of a phase
// matches need not be sent to it, whose answer would be a plain allow.
type Rules struct {
	Mutating   []Rule `json:"mutating"`
	Validating []Rule `json:"validating"`
}

// For is the rules of phase p.
func (r Rules) For(p Phase) []Rule {
	if p == PhaseMutating {
		return r.Mutating
	}
	return r.Validating
}

// Matches reports whether any of rules matches a, as kube matches a
// webhook's rules: operation, API group, version, resource/subresource and
// scope must all match. A rule also matches when it matches the resource the
// client asked for, as kube's default matchPolicy (Equivalent) calls a
// webhook about a request made through another version or resource.
//
// Rules' Namespace conditions are not checked here: a rule that has one
// matches whatever the namespace's state (see MatchesIn, which checks them).
func Matches(rules []Rule, a *Attributes) bool {
	return slices.ContainsFunc(rules, func(r Rule) bool { return matchesRequest(r, a) })
}

// MatchesIn is Matches with each rule's Namespace condition checked against
// states (nil: not checked), as far as they can tell: a caller that owns
// the namespaces' state (the registry) asks about fewer requests, never
// about too few. a's objects and options need not be filled in, so that a
// caller can decide before encoding them.
func MatchesIn(ctx context.Context, states NamespaceStates, rules []Rule, a *Attributes) bool {
	return slices.ContainsFunc(rules, func(r Rule) bool {
		return matchesRequest(r, a) && r.Namespace.mayBeIn(ctx, states, a.Namespace)
	})
}

func matchesRequest(r Rule, a *Attributes) bool {
	return matchesOperation(r, a) && matchesScope(r, a) &&
		(matchesResource(r, a.Resource, a.SubResource) ||
			(a.RequestResource != (metav1.GroupVersionResource{}) &&
				matchesResource(r, a.RequestResource, a.RequestSubResource)))
}

func matchesOperation(r Rule, a *Attributes) bool {
	for _, op := range r.Operations {
		if op == admissionregistrationv1.OperationAll || string(op) == string(a.Operation) {
			return true
		}
	}
	return false
}

// matchesScope is kube's scope check. Requests about a namespace carry its
// name as their namespace (so that namespaced policy sees them), yet a
// namespace is cluster-scoped: it is told apart by its resource.
func matchesScope(r Rule, a *Attributes) bool {
	if r.Scope == nil || *r.Scope == admissionregistrationv1.AllScopes {
		return true
	}
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	switch *r.Scope {
	case admissionregistrationv1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case admissionregistrationv1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

// MatchesResource reports whether r names the resource gvr's subresource
// sub (none when empty), whatever the operation and scope.
func MatchesResource(r Rule, gvr metav1.GroupVersionResource, sub string) bool {
	return matchesResource(r, gvr, sub)
}

// matchesResource matches group, version and "resource/subresource" with
// kube's wildcards: "*" is any resource but not its subresources, "r/*" is
// r and all its subresources, "*/s" is subresource s of anything, "*/*" is
// everything.
func matchesResource(r Rule, gvr metav1.GroupVersionResource, sub string) bool {
	if !anyOf(r.APIGroups, gvr.Group) || !anyOf(r.APIVersions, gvr.Version) {
		return false
	}
	return slices.ContainsFunc(r.Resources, func(res string) bool {
		name, subName, _ := strings.Cut(res, "/")
		return (name == "*" || name == gvr.Resource) && (subName == "*" || subName == sub)
	})
}

// anyOf reports whether items holds want or the wildcard "*".
func anyOf(items []string, want string) bool {
	return slices.Contains(items, "*") || slices.Contains(items, want)
}
