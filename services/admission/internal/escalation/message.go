package escalation

import (
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// notHeldMessage says what user lacks, worded as kube's ConfirmNoEscalation
// words it so that tools matching kube's message keep working: the missing
// permissions compacted (verbs of one resource merged), one per line, sorted.
func notHeldMessage(user authenticationv1.UserInfo, s shortfall) string {
	lines := make([]string, 0, len(s.missing))
	for _, r := range compact(s.missing) {
		lines = append(lines, compactString(r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		user.Username, user.Groups, strings.Join(lines, "\n"))
	if len(s.evaluationErrors) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", s.evaluationErrors)
	}
	return msg
}

// compact merges the verbs of missing permissions that differ only in
// their verb, as kube's CompactRules does for single-resource rules, so
// that a role missing get, list and watch on pods says so in one line.
func compact(missing []query) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	index := map[query]int{}
	for _, q := range missing {
		key := q
		key.verb = ""
		if i, ok := index[key]; ok {
			out[i].Verbs = append(out[i].Verbs, q.verb)
			continue
		}
		index[key] = len(out)
		out = append(out, q.rule())
	}
	return out
}

// compactString is kube's rbacv1helpers.CompactString: the rule's non-empty
// fields, quoted.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(field string, values []string) {
		if len(values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", field, values))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
