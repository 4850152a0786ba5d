package validation

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateRole checks a Role's rules, which cannot grant non-resource URLs:
// those are not namespaced.
func ValidateRole(obj, old *unstructured.Unstructured) field.ErrorList {
	role, _, errs := decodePair[rbacv1.Role](obj, old)
	if len(errs) > 0 {
		return errs
	}
	return validatePolicyRules(role.Rules, true)
}

// ValidateClusterRole checks a ClusterRole's rules and aggregation rule.
func ValidateClusterRole(obj, old *unstructured.Unstructured) field.ErrorList {
	role, _, errs := decodePair[rbacv1.ClusterRole](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validatePolicyRules(role.Rules, false)
	if role.AggregationRule != nil {
		errs = append(errs, validateAggregationRule(role.AggregationRule)...)
	}
	return errs
}

// validatePolicyRules checks each rule at rules[i].
func validatePolicyRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i := range rules {
		errs = append(errs, validatePolicyRule(&rules[i], namespaced, field.NewPath("rules").Index(i))...)
	}
	return errs
}

// validatePolicyRule checks that a rule has verbs and grants either
// resources (with their API groups) or non-resource URLs, never both.
func validatePolicyRule(rule *rbacv1.PolicyRule, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(path.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		urlsPath := path.Child("nonResourceURLs")
		if namespaced {
			errs = append(errs, field.Invalid(urlsPath, rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(urlsPath, rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(path.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(path.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// validateAggregationRule checks that an aggregation rule selects roles
// with at least one valid selector.
func validateAggregationRule(rule *rbacv1.AggregationRule) field.ErrorList {
	path := field.NewPath("aggregationRule", "clusterRoleSelectors")
	if len(rule.ClusterRoleSelectors) == 0 {
		return field.ErrorList{field.Required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")}
	}
	var errs field.ErrorList
	for i := range rule.ClusterRoleSelectors {
		sel, p := &rule.ClusterRoleSelectors[i], path.Index(i)
		selErrs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil && len(selErrs) == 0 {
			selErrs = append(selErrs, field.Invalid(p, sel, "invalid label selector."))
		}
		errs = append(errs, selErrs...)
	}
	return errs
}
