package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// maxAuditAnnotations bounds what one policy adds to an audit event.
	maxAuditAnnotations = 20
	// maxAuditValueExpression bounds an audit annotation's CEL (5 KiB), below
	// the 10 KiB its value may reach once evaluated.
	maxAuditValueExpression = 5 * 1024
)

// policyReasons are the reasons a failed validation may report.
var policyReasons = []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge}

// DefaultValidatingAdmissionPolicy fills in kube's defaults: fail closed,
// and the match criteria defaults.
func DefaultValidatingAdmissionPolicy(obj *unstructured.Unstructured) {
	spec := mapAt(obj.Object, "spec")
	setDefault(spec, "failurePolicy", string(admv1.Fail))
	defaultMatchResources(mapAt(spec, "matchConstraints"))
}

// ValidateValidatingAdmissionPolicy checks a policy's structure and
// compiles its CEL expressions.
func ValidateValidatingAdmissionPolicy(obj, old *unstructured.Unstructured) field.ErrorList {
	policy, _, errs := decodePair[admv1.ValidatingAdmissionPolicy](obj, old)
	if len(errs) > 0 {
		return errs
	}
	spec, p := &policy.Spec, field.NewPath("spec")
	if spec.FailurePolicy == nil {
		errs = append(errs, field.Required(p.Child("failurePolicy"), ""))
	} else if !slices.Contains(failurePolicies, *spec.FailurePolicy) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *spec.FailurePolicy, failurePolicies))
	}
	if spec.ParamKind != nil {
		errs = append(errs, validateParamKind(spec.ParamKind, p.Child("paramKind"))...)
	}
	errs = append(errs, validateMatchConstraints(spec.MatchConstraints, p.Child("matchConstraints"))...)
	errs = append(errs, validateMatchConditions(spec.MatchConditions, p.Child("matchConditions"))...)
	for i := range spec.Variables {
		errs = append(errs, validateVariable(&spec.Variables[i], p.Child("variables").Index(i))...)
	}
	errs = append(errs, validatePolicyChecks(spec, policy.Name, p)...)
	return append(errs, validatePolicyCEL(spec, p)...)
}

// validateMatchConstraints requires match criteria with at least one
// resource rule: the rules give the policy's expressions their types.
func validateMatchConstraints(mc *admv1.MatchResources, p *field.Path) field.ErrorList {
	if mc == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := validateMatchResources(mc, p)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("resourceRules"), ""))
	}
	return errs
}

// validatePolicyChecks requires something for the policy to do, a
// validation or an audit annotation, and checks each.
func validatePolicyChecks(spec *admv1.ValidatingAdmissionPolicySpec, name string, p *field.Path) field.ErrorList {
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return field.ErrorList{field.Required(p.Child("validations"), msg), field.Required(p.Child("auditAnnotations"), msg)}
	}
	var errs field.ErrorList
	for i := range spec.Validations {
		errs = append(errs, validatePolicyValidation(&spec.Validations[i], p.Child("validations").Index(i))...)
	}
	annotationsPath := p.Child("auditAnnotations")
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(annotationsPath, len(spec.AuditAnnotations),
			fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range spec.AuditAnnotations {
		idx := annotationsPath.Index(i)
		errs = append(errs, validateAuditAnnotation(&a, name, idx)...)
		if keys[a.Key] {
			errs = append(errs, field.Duplicate(idx.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

// validatePolicyValidation checks one validation: an expression, a
// one-line message, and a known reason.
func validatePolicyValidation(v *admv1.Validation, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "message must be non-empty if specified"))
	case strings.ContainsAny(msg, "\r\n"):
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(policyReasons, *v.Reason) {
		errs = append(errs, field.NotSupported(p.Child("reason"), *v.Reason, policyReasons))
	}
	return errs
}

// validateAuditAnnotation checks an audit annotation: its key, prefixed by
// the policy name, must be a valid annotation key, and it needs a value.
func validateAuditAnnotation(a *admv1.AuditAnnotation, policyName string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policyName == "" {
		errs = append(errs, field.Invalid(p.Child("key"), a.Key, "requires metadata.name be non-empty"))
	} else {
		errs = append(errs, qualifiedName(policyName+"/"+a.Key, p.Child("key"))...)
	}
	value := strings.TrimSpace(a.ValueExpression)
	switch {
	case value == "":
		errs = append(errs, field.Required(p.Child("valueExpression"), "valueExpression is not specified"))
	case len(value) > maxAuditValueExpression:
		errs = append(errs, field.Required(p.Child("valueExpression"),
			fmt.Sprintf("must not exceed %d bytes in length", maxAuditValueExpression)))
	}
	return errs
}

// validateParamKind checks the kind of a policy's parameters: an API
// version whose group and version are well-formed, and a kind.
func validateParamKind(pk *admv1.ParamKind, p *field.Path) field.ErrorList {
	errs := requiredValid(pk.APIVersion, p.Child("apiVersion"), validateAPIVersion)
	if pk.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := validation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateAPIVersion checks "group/version" or a bare core version.
func validateAPIVersion(apiVersion string, p *field.Path) field.ErrorList {
	if strings.Count(apiVersion, "/") > 1 {
		return field.ErrorList{field.Invalid(p, apiVersion, "unexpected GroupVersion string: "+apiVersion)}
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	var errs field.ErrorList
	if group != "" {
		if msgs := validation.IsDNS1123Subdomain(group); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p, group, strings.Join(msgs, ",")))
		}
	}
	if version == "" {
		return append(errs, field.Invalid(p, apiVersion, "version must be specified"))
	}
	if msgs := validation.IsDNS1035Label(version); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p, version, strings.Join(msgs, ",")))
	}
	return errs
}

// celIdentifier and celReserved define the names a CEL variable may take.
var (
	celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celReserved   = setOf("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
		"function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")
)

// validateVariable checks a policy variable: a CEL identifier and an
// expression.
func validateVariable(v *admv1.Variable, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch name := strings.TrimSpace(v.Name); {
	case name == "":
		errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
	case !celIdentifier.MatchString(v.Name) || celReserved[v.Name]:
		errs = append(errs, field.Invalid(p.Child("name"), v.Name, "name is not a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	}
	return errs
}
