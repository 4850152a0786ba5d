package rbacpolicy

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Aggregate returns the effective rules of every ClusterRole, by name. A
// ClusterRole without an aggregationRule has its own rules. One with an
// aggregationRule has, as kube's aggregation controller writes into it, the
// union of the rules of the other ClusterRoles its selectors match: selector
// by selector, matches in name order, duplicates dropped, and its own stored
// rules ignored. Doing it here means the engine never depends on a
// controller having run, and never trusts rules a controller wrote for
// labels that have since changed.
//
// Aggregated roles can select aggregated roles (admin selects edit, which
// selects view), so the union is iterated to a fixed point, which is also
// where kube's controller ends up, cycles included.
func Aggregate(clusterRoles []rbacv1.ClusterRole) map[string][]rbacv1.PolicyRule {
	byName := make(map[string]*rbacv1.ClusterRole, len(clusterRoles))
	for i := range clusterRoles {
		byName[clusterRoles[i].Name] = &clusterRoles[i]
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)

	effective := make(map[string][]rbacv1.PolicyRule, len(byName))
	sources := map[string][]string{}
	var aggregated []string
	for _, name := range names {
		role := byName[name]
		if role.AggregationRule == nil {
			effective[name] = role.Rules
			continue
		}
		// Present even while empty: a role that aggregates nothing exists
		// and grants nothing; it is not a missing role.
		effective[name] = nil
		aggregated = append(aggregated, name)
		sources[name] = selected(role, names, byName)
	}

	// Each pass can only add rules, so len(aggregated)+1 passes reach the
	// fixed point; the bound only guards against a bug.
	for range len(aggregated) + 1 {
		changed := false
		for _, name := range aggregated {
			union := unionRules(sources[name], effective)
			if !slices.EqualFunc(union, effective[name], sameRule) {
				effective[name] = union
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return effective
}

// selected lists, selector by selector, the ClusterRoles other than role
// that role's aggregationRule matches. A selector kube would reject matches
// nothing: an aggregated role fails closed.
func selected(role *rbacv1.ClusterRole, names []string, byName map[string]*rbacv1.ClusterRole) []string {
	var out []string
	for i := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			continue
		}
		for _, name := range names {
			if name != role.Name && selector.Matches(labels.Set(byName[name].Labels)) {
				out = append(out, name)
			}
		}
	}
	return out
}

// unionRules concatenates the effective rules of sources, dropping rules
// already present.
func unionRules(sources []string, effective map[string][]rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	seen := map[string]bool{}
	for _, source := range sources {
		for _, rule := range effective[source] {
			key := ruleKey(rule)
			if !seen[key] {
				seen[key] = true
				out = append(out, rule)
			}
		}
	}
	return out
}

// ruleKey identifies a rule by content, nil and empty lists alike, as kube's
// semantic equality does.
func ruleKey(r rbacv1.PolicyRule) string {
	return strings.Join([]string{
		keyPart(r.Verbs), keyPart(r.APIGroups), keyPart(r.Resources),
		keyPart(r.ResourceNames), keyPart(r.NonResourceURLs),
	}, "\x1e")
}

// sameRule reports whether two rules have the same content.
func sameRule(a, b rbacv1.PolicyRule) bool {
	return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) &&
		slices.Equal(a.Resources, b.Resources) && slices.Equal(a.ResourceNames, b.ResourceNames) &&
		slices.Equal(a.NonResourceURLs, b.NonResourceURLs)
}

// keyPart is one list of a rule's key.
func keyPart(list []string) string { return strings.Join(list, "\x1f") }
