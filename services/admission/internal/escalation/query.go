package escalation

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// query is one permission a granted rule holds: a resource one (verb, group,
// resource, subresource, name, in namespace) or a non-resource one (verb,
// url). It is comparable, so that the same permission granted by two rules
// is asked once.
type query struct {
	verb        string
	namespace   string
	group       string
	resource    string
	subresource string
	name        string
	url         string
}

// String names q in errors.
func (q query) String() string {
	if q.url != "" {
		return fmt.Sprintf("%s %s", q.verb, q.url)
	}
	r := q.resource
	if q.subresource != "" {
		r += "/" + q.subresource
	}
	return fmt.Sprintf("%s %s.%s %q in namespace %q", q.verb, r, q.group, q.name, q.namespace)
}

// rule is q as the single-permission rule kube's BreakdownRule would have
// made of it, for the denial message.
func (q query) rule() rbacv1.PolicyRule {
	if q.url != "" {
		return rbacv1.PolicyRule{Verbs: []string{q.verb}, NonResourceURLs: []string{q.url}}
	}
	r := q.resource
	if q.subresource != "" {
		r += "/" + q.subresource
	}
	rule := rbacv1.PolicyRule{Verbs: []string{q.verb}, APIGroups: []string{q.group}, Resources: []string{r}}
	if q.name != "" {
		rule.ResourceNames = []string{q.name}
	}
	return rule
}

// queriesFor breaks rules down into the permissions they hold, in
// namespace ("" for cluster-wide), without duplicates and in rule order. A
// rule with an empty list (no verbs, or resources without groups) holds
// nothing, as in kube's breakdown.
func queriesFor(rules []rbacv1.PolicyRule, namespace string) []query {
	seen := map[query]bool{}
	var out []query
	add := func(q query) {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	for i := range rules {
		r := &rules[i]
		for _, verb := range r.Verbs {
			for _, group := range r.APIGroups {
				for _, resource := range r.Resources {
					res, sub, _ := strings.Cut(resource, "/")
					q := query{verb: verb, namespace: namespace, group: group, resource: res, subresource: sub}
					if len(r.ResourceNames) == 0 {
						add(q)
					}
					for _, name := range r.ResourceNames {
						q.name = name
						add(q)
					}
				}
			}
			for _, url := range r.NonResourceURLs {
				add(query{verb: verb, url: url})
			}
		}
	}
	return out
}
