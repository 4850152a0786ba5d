package rbac

import (
	"fmt"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	rbacv1 "k8s.io/api/rbac/v1"
)

// role is one Role or ClusterRole compiled for evaluation. It is immutable
// once built, so any number of requests may evaluate it at once.
type role struct {
	// rules are the role's effective rules (aggregated for an aggregated
	// ClusterRole), owned by the role.
	rules []rbacv1.PolicyRule
	// enforcer holds one p line per rule with resources and one p2 line per
	// rule with nonResourceURLs; nil when there are neither.
	enforcer *casbin.Enforcer
	// resourceVerbs and nonResourceVerbs are the verbs of the p and p2
	// lines: a request whose verb no line names skips the role without
	// calling casbin, whose fixed cost per Enforce dominates a small role.
	resourceVerbs, nonResourceVerbs verbSet
}

// verbSet is the verbs some policy lines name; the zero value is empty.
type verbSet struct {
	all   bool // some line names "*"
	verbs map[string]bool
}

// add records the verbs of one line.
func (s *verbSet) add(verbs []string) {
	for _, v := range verbs {
		if v == rbacv1.VerbAll {
			s.all = true
		}
		if s.verbs == nil {
			s.verbs = map[string]bool{}
		}
		s.verbs[v] = true
	}
}

// mayMatch reports whether a line could match verb: the set is a filter in
// front of casbin, never the decision.
func (s *verbSet) mayMatch(verb string) bool {
	return s.all || s.verbs[verb]
}

// compileRole builds the enforcer of a role with the given rules.
func compileRole(m model.Model, rules []rbacv1.PolicyRule) (*role, error) {
	r := &role{rules: make([]rbacv1.PolicyRule, len(rules))}
	var resourceLines, nonResourceLines [][]string
	for i := range rules {
		rules[i].DeepCopyInto(&r.rules[i])
		rule := &r.rules[i]
		verbs := encodeList(rule.Verbs)
		// A rule can carry both halves (kube's validation forbids it, its
		// authorizer honours both); each half is matched on its own.
		if len(rule.Resources) > 0 {
			r.resourceVerbs.add(rule.Verbs)
			resourceLines = append(resourceLines, []string{
				verbs, encodeList(rule.APIGroups), encodeList(rule.Resources), encodeList(rule.ResourceNames),
			})
		}
		if len(rule.NonResourceURLs) > 0 {
			r.nonResourceVerbs.add(rule.Verbs)
			nonResourceLines = append(nonResourceLines, []string{verbs, encodeList(rule.NonResourceURLs)})
		}
	}
	if len(resourceLines) == 0 && len(nonResourceLines) == 0 {
		return r, nil // no enforcer: both verb sets are empty
	}
	e, err := newEnforcer(m)
	if err != nil {
		return nil, err
	}
	if err := addLines(e, "p", resourceLines); err != nil {
		return nil, err
	}
	if err := addLines(e, "p2", nonResourceLines); err != nil {
		return nil, err
	}
	r.enforcer = e
	// casbin compiles a matcher on its first use; do it now, so no request
	// pays for it and a broken model fails Load instead of a request.
	if _, err := e.Enforce("", "", "", "", ""); err != nil {
		return nil, fmt.Errorf("rbac: compiling the resource matcher: %w", err)
	}
	if _, err := e.Enforce(nonResourceContext, "", ""); err != nil {
		return nil, fmt.Errorf("rbac: compiling the non-resource matcher: %w", err)
	}
	return r, nil
}

// addLines adds policy lines of type ptype; identical lines (two rules
// with the same content) are kept once.
func addLines(e *casbin.Enforcer, ptype string, lines [][]string) error {
	if len(lines) == 0 {
		return nil
	}
	if _, err := e.AddNamedPoliciesEx(ptype, lines); err != nil {
		return fmt.Errorf("rbac: adding %s policy lines: %w", ptype, err)
	}
	return nil
}

// allowsResource asks the role's enforcer about a resource request;
// combined is the resource joined with its subresource.
func (r *role) allowsResource(verb, group, combined, subresource, name string) (bool, error) {
	if !r.resourceVerbs.mayMatch(verb) {
		return false, nil
	}
	return r.enforcer.Enforce(verb, group, combined, subresource, name)
}

// allowsNonResource asks the role's enforcer about a non-resource request.
func (r *role) allowsNonResource(verb, path string) (bool, error) {
	if !r.nonResourceVerbs.mayMatch(verb) {
		return false, nil
	}
	return r.enforcer.Enforce(nonResourceContext, verb, path)
}
