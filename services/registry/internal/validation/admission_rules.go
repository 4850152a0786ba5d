package validation

import (
	"fmt"
	"slices"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rules and match criteria shared by webhook configurations and admission
// policies. Enum lists are sorted, as kube prints them.
var (
	supportedOperations = []admv1.OperationType{admv1.OperationAll, admv1.Connect, admv1.Create, admv1.Delete, admv1.Update}
	supportedScopes     = []admv1.ScopeType{admv1.AllScopes, admv1.ClusterScope, admv1.NamespacedScope}
	failurePolicies     = []admv1.FailurePolicyType{admv1.Fail, admv1.Ignore}
	matchPolicies       = []admv1.MatchPolicyType{admv1.Equivalent, admv1.Exact}
)

// maxMatchConditions bounds the CEL a request must evaluate to be matched.
const maxMatchConditions = 64

// defaultRules gives each rule of the list at m[key] the scope "*".
func defaultRules(m map[string]any, key string) {
	for _, rule := range mapsAt(m, key) {
		setDefault(rule, "scope", string(admv1.AllScopes))
	}
}

// defaultMatchResources defaults a policy's or binding's match criteria as
// kube does: match equivalent versions, and select everything.
func defaultMatchResources(mr map[string]any) {
	if mr == nil {
		return
	}
	setDefault(mr, "matchPolicy", string(admv1.Equivalent))
	setDefault(mr, "namespaceSelector", map[string]any{})
	setDefault(mr, "objectSelector", map[string]any{})
	defaultRules(mr, "resourceRules")
	defaultRules(mr, "excludeResourceRules")
}

// validateRuleWithOperations checks a rule's operations and what it matches.
func validateRuleWithOperations(r *admv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	opsPath := p.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(opsPath, ""))
	}
	if len(r.Operations) > 1 && hasWildcard(r.Operations) {
		errs = append(errs, field.Invalid(opsPath, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(supportedOperations, op) {
			errs = append(errs, field.NotSupported(opsPath.Index(i), op, supportedOperations))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

// validateRule checks the groups, versions, resources and scope of a rule.
// The group may be empty (the core group); versions may not.
func validateRule(r *admv1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	groupsPath, versionsPath := p.Child("apiGroups"), p.Child("apiVersions")
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(groupsPath, ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		errs = append(errs, field.Invalid(groupsPath, r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(versionsPath, ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		errs = append(errs, field.Invalid(versionsPath, r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(versionsPath.Index(i), ""))
		}
	}
	errs = append(errs, validateRuleResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(supportedScopes, *r.Scope) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, supportedScopes))
	}
	return errs
}

// validateRuleResources checks resource and subresource patterns: "*/*" is
// everything and stands alone, "*" is every resource without
// subresources, and a wildcard makes narrower patterns it covers redundant.
func validateRuleResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	allSubresourcesOf, resourcesWithSub := map[string]bool{}, map[string]bool{}
	hasAll, hasStar, hasPlain := false, false, false
	for i, r := range resources {
		if r == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		hasAll = hasAll || r == "*/*"
		hasStar = hasStar || r == "*"
		res, sub, ok := strings.Cut(r, "/")
		if !ok {
			hasPlain = hasPlain || r != "*"
			continue
		}
		if allSubresourcesOf[res] {
			errs = append(errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, r)))
		}
		if resourcesWithSub[sub] {
			errs = append(errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, r)))
		}
		allSubresourcesOf[res] = allSubresourcesOf[res] || sub == "*"
		resourcesWithSub[sub] = resourcesWithSub[sub] || res == "*"
	}
	if len(resources) > 1 && hasAll {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasStar && hasPlain {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateMatchResources checks a policy's or binding's match criteria.
// The selectors and match policy are defaulted, so absent means a client
// bypassed defaulting.
func validateMatchResources(mr *admv1.MatchResources, p *field.Path) field.ErrorList {
	if mr == nil {
		return nil
	}
	var errs field.ErrorList
	if mr.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !slices.Contains(matchPolicies, *mr.MatchPolicy) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *mr.MatchPolicy, matchPolicies))
	}
	errs = append(errs, requiredSelector(mr.NamespaceSelector, p.Child("namespaceSelector"))...)
	errs = append(errs, requiredSelector(mr.ObjectSelector, p.Child("objectSelector"))...)
	for i := range mr.ResourceRules {
		errs = append(errs, validateNamedRule(&mr.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range mr.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&mr.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// requiredSelector checks a selector that defaulting always sets.
func requiredSelector(sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	return validateSelector(sel, p)
}

// validateSelector checks a label selector strictly: label values in it
// must be valid, as for any type released after kube fixed that.
func validateSelector(sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)
}

// validateNamedRule checks a rule that may also name the objects it matches.
func validateNamedRule(r *admv1.NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		namePath := p.Child("resourceNames").Index(i)
		errs = append(errs, invalidEach(namePath, name, path.ValidatePathSegmentName(name, false))...)
		if seen[name] {
			errs = append(errs, field.Duplicate(namePath, name))
		}
		seen[name] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}

// validateMatchConditions checks CEL match conditions without compiling
// them: named uniquely, with an expression, and not too many.
func validateMatchConditions(conds []admv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(conds), maxMatchConditions))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		idx := p.Index(i)
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, field.Required(idx.Child("expression"), ""))
		}
		if c.Name == "" {
			errs = append(errs, field.Required(idx.Child("name"), ""))
			continue
		}
		errs = append(errs, qualifiedName(c.Name, idx.Child("name"))...)
		if seen[c.Name] {
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		}
		seen[c.Name] = true
	}
	return errs
}

// hasWildcard reports whether a list holds "*".
func hasWildcard[T ~string](list []T) bool {
	return slices.Contains(list, "*")
}
