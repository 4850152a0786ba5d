package validation

import (
	"strings"

	"github.com/google/cel-go/cel"
	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// validatePolicyCEL compiles every CEL expression of a policy in the
// environment the admission service evaluates them in, so that a policy
// that could never run is refused when written, as kube-apiserver does,
// rather than failing every request it matches.
func validatePolicyCEL(spec *admv1.ValidatingAdmissionPolicySpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range spec.Validations {
		idx := p.Child("validations").Index(i)
		errs = append(errs, compileCEL(v.Expression, celenv.Bool, idx.Child("expression"))...)
		errs = append(errs, compileCEL(v.MessageExpression, celenv.String, idx.Child("messageExpression"))...)
	}
	for i, c := range spec.MatchConditions {
		errs = append(errs, compileCEL(c.Expression, celenv.Bool, p.Child("matchConditions").Index(i).Child("expression"))...)
	}
	for i, v := range spec.Variables {
		errs = append(errs, compileCEL(v.Expression, celenv.Any, p.Child("variables").Index(i).Child("expression"))...)
	}
	for i, a := range spec.AuditAnnotations {
		if len(a.ValueExpression) > maxAuditValueExpression {
			continue // refused for its length already
		}
		errs = append(errs, compileCEL(a.ValueExpression, celenv.StringOrNull, p.Child("auditAnnotations").Index(i).Child("valueExpression"))...)
	}
	return errs
}

// compileCEL is the error of an expression that does not compile to want;
// none for a blank one, which the structural checks report.
func compileCEL(expr string, want *cel.Type, p *field.Path) field.ErrorList {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	if _, err := celenv.Compile(expr, want); err != nil {
		return field.ErrorList{field.Invalid(p, expr, err.Error())}
	}
	return nil
}
