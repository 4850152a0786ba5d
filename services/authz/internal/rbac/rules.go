package rbac

import (
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
)

// Rules lists what user may do in namespace, for a SelfSubjectRulesReview
// (kubectl auth can-i --list): the rules of the roles bound to the user or
// its groups by ClusterRoleBindings, then those bound by RoleBindings in
// namespace, in binding order, each role once. Unlike kube, the
// nonResourceURLs of a ClusterRole bound by a RoleBinding are left out,
// since they grant nothing there. Before the first Load it lists nothing.
func (e *Engine) Rules(user authenticationv1.UserInfo, namespace string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule) {
	p := e.policy.Load()
	if p == nil {
		return nil, nil
	}
	var (
		resourceRules    []authorizationv1.ResourceRule
		nonResourceRules []authorizationv1.NonResourceRule
	)
	for _, h := range p.holdings(user, namespace) {
		for _, rule := range h.role.rules {
			if len(rule.Resources) > 0 {
				resourceRules = append(resourceRules, authorizationv1.ResourceRule{
					Verbs:         slices.Clone(rule.Verbs),
					APIGroups:     slices.Clone(rule.APIGroups),
					Resources:     slices.Clone(rule.Resources),
					ResourceNames: slices.Clone(rule.ResourceNames),
				})
			}
			if len(rule.NonResourceURLs) > 0 && h.clusterWide {
				nonResourceRules = append(nonResourceRules, authorizationv1.NonResourceRule{
					Verbs:           slices.Clone(rule.Verbs),
					NonResourceURLs: slices.Clone(rule.NonResourceURLs),
				})
			}
		}
	}
	return resourceRules, nonResourceRules
}

// holding is a role the user holds, and whether it holds it cluster-wide.
type holding struct {
	role        *role
	order       int
	clusterWide bool
}

// holdings lists the distinct resolved roles the user holds in namespace,
// in binding order.
func (p *policy) holdings(user authenticationv1.UserInfo, namespace string) []holding {
	var out []holding
	collect := func(s *scope, clusterWide bool) {
		if s == nil {
			return
		}
		lists := [][]grant{s.users[user.Username]}
		for _, group := range user.Groups {
			lists = append(lists, s.groups[group])
		}
		for _, list := range lists {
			for _, g := range list {
				if g.role != nil {
					out = append(out, holding{role: g.role, order: g.order, clusterWide: clusterWide})
				}
			}
		}
	}
	collect(p.cluster, true)
	if namespace != "" {
		collect(p.namespaces[namespace], false)
	}
	// ClusterRoleBindings are numbered before RoleBindings, so after the
	// sort a role held both ways is first met cluster-wide.
	slices.SortStableFunc(out, func(a, b holding) int { return a.order - b.order })
	seen := map[*role]bool{}
	return slices.DeleteFunc(out, func(h holding) bool {
		if seen[h.role] {
			return true
		}
		seen[h.role] = true
		return false
	})
}
