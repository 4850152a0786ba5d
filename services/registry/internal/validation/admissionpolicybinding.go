package validation

import (
	"slices"

	admv1 "k8s.io/api/admissionregistration/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	// validationActions are what a binding may do with a failed validation.
	validationActions = []admv1.ValidationAction{admv1.Audit, admv1.Deny, admv1.Warn}
	// paramNotFoundActions are what a binding does when its parameters are
	// missing.
	paramNotFoundActions = []admv1.ParameterNotFoundActionType{admv1.DenyAction, admv1.AllowAction}
)

// DefaultValidatingAdmissionPolicyBinding defaults the binding's match
// criteria, when it narrows the policy's with its own.
func DefaultValidatingAdmissionPolicyBinding(obj *unstructured.Unstructured) {
	defaultMatchResources(mapAt(mapAt(obj.Object, "spec"), "matchResources"))
}

// ValidateValidatingAdmissionPolicyBinding checks the policy a binding
// names, its parameters, its match criteria and its actions.
func ValidateValidatingAdmissionPolicyBinding(obj, old *unstructured.Unstructured) field.ErrorList {
	b, _, errs := decodePair[admv1.ValidatingAdmissionPolicyBinding](obj, old)
	if len(errs) > 0 {
		return errs
	}
	spec, p := &b.Spec, field.NewPath("spec")
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(p.Child("policyName"), ""))
	} else {
		errs = append(errs, invalidEach(p.Child("policyName"), spec.PolicyName, apimachineryvalidation.NameIsDNSSubdomain(spec.PolicyName, false))...)
	}
	if spec.ParamRef != nil {
		errs = append(errs, validateParamRef(spec.ParamRef, p.Child("paramRef"))...)
	}
	errs = append(errs, validateMatchResources(spec.MatchResources, p.Child("matchResources"))...)
	return append(errs, validateValidationActions(spec.ValidationActions, p.Child("validationActions"))...)
}

// validateParamRef checks how a binding finds its parameters: by name or
// by selector, not both, and what to do when none is found.
func validateParamRef(ref *admv1.ParamRef, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if ref.Name != "" {
		errs = append(errs, invalidEach(p.Child("name"), ref.Name, path.ValidatePathSegmentName(ref.Name, false))...)
		if ref.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), exclusive))
		}
	}
	if ref.Selector != nil {
		errs = append(errs, validateSelector(ref.Selector, p.Child("selector"))...)
		if ref.Name != "" {
			errs = append(errs, field.Forbidden(p.Child("selector"), exclusive))
		}
	}
	if ref.Name == "" && ref.Selector == nil {
		errs = append(errs, field.Required(p, "one of name or selector must be specified"))
	}
	actionPath := p.Child("parameterNotFoundAction")
	switch a := ref.ParameterNotFoundAction; {
	case a == nil || *a == "":
		errs = append(errs, field.Required(actionPath, ""))
	case !slices.Contains(paramNotFoundActions, *a):
		errs = append(errs, field.NotSupported(actionPath, *a, paramNotFoundActions))
	}
	return errs
}

// validateValidationActions checks the actions: at least one, known, no
// repeats, and not both Deny and Warn (the warning would repeat the error).
func validateValidationActions(actions []admv1.ValidationAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[admv1.ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(validationActions, a) {
			errs = append(errs, field.NotSupported(p.Index(i), a, validationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admv1.Deny] && seen[admv1.Warn] {
		errs = append(errs, field.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation "+
			"failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(p, "at least one validation action is required"))
	}
	return errs
}
