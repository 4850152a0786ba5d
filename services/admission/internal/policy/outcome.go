package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// validationFailureKey is the audit annotation kube lists the failures
// of bindings with the Audit action under.
const validationFailureKey = "validation.policy.admission.k8s.io/validation_failure"

// maxValidationFailures bounds that list, as kube does.
const maxValidationFailures = 50

// outcome collects what every policy decided about one request.
type outcome struct {
	denials     []denial
	warnings    []string
	failures    []validationFailure
	annotations map[string]string
}

// denial is a failure under a Deny action, or a configuration error.
type denial struct {
	policy, binding string // binding empty for an error of the policy itself
	message         string
	reason          metav1.StatusReason
}

// validationFailure is one entry of the Audit annotation, in kube's JSON.
type validationFailure struct {
	Message           string                   `json:"message"`
	Policy            string                   `json:"policy"`
	Binding           string                   `json:"binding"`
	ExpressionIndex   int                      `json:"expressionIndex"`
	ValidationActions []admv1.ValidationAction `json:"validationActions"`
}

// add applies a binding's validationActions to its policy's failures.
func (o *outcome) add(p *admv1.ValidatingAdmissionPolicy, b *admv1.ValidatingAdmissionPolicyBinding, ev evaluation) {
	for _, e := range ev.annotationErrors {
		o.denials = append(o.denials, denial{policy: p.Name, binding: b.Name, message: e.message, reason: e.reason})
	}
	for _, f := range ev.failures {
		for _, action := range b.Spec.ValidationActions {
			switch action {
			case admv1.Deny:
				o.denials = append(o.denials, denial{policy: p.Name, binding: b.Name, message: f.message, reason: f.reason})
			case admv1.Warn:
				o.warnings = append(o.warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.Name, b.Name, f.message))
			case admv1.Audit:
				o.failures = append(o.failures, validationFailure{Message: f.message, Policy: p.Name, Binding: b.Name,
					ExpressionIndex: f.index, ValidationActions: b.Spec.ValidationActions})
			}
		}
	}
}

// configError is a policy or binding that cannot be applied (a selector
// that does not parse, params that cannot be found): a denial unless the
// policy's failurePolicy is Ignore, as in kube.
func (o *outcome) configError(p *admv1.ValidatingAdmissionPolicy, b *admv1.ValidatingAdmissionPolicyBinding, err error) {
	if fp := p.Spec.FailurePolicy; fp != nil && *fp == admv1.Ignore {
		return
	}
	d := denial{policy: p.Name, reason: metav1.StatusReasonInvalid, message: "failed to configure policy: " + err.Error()}
	if b != nil {
		d.binding, d.message = b.Name, "failed to configure binding: "+err.Error()
	}
	o.denials = append(o.denials, d)
}

// annotate adds a policy's audit annotations, distinct values of one key
// (from several bindings or params) joined by ", " as kube does.
func (o *outcome) annotate(values map[string][]string) {
	for k, vs := range values {
		if o.annotations == nil {
			o.annotations = map[string]string{}
		}
		o.annotations[k] = strings.Join(vs, ", ")
	}
}

// result is the answer: the first denial if any, in kube's words and with
// its reason's code; the warnings and audit annotations either way.
func (o *outcome) result(a *admission.Attributes) *admission.Result {
	res := admission.Allow()
	if len(o.denials) > 0 {
		res = o.denials[0].result(a)
	}
	res.Warnings = o.warnings
	res.AuditAnnotations = o.annotations
	if len(o.failures) > 0 {
		failures := o.failures[:min(len(o.failures), maxValidationFailures)]
		if raw, err := json.Marshal(failures); err == nil {
			if res.AuditAnnotations == nil {
				res.AuditAnnotations = map[string]string{}
			}
			res.AuditAnnotations[validationFailureKey] = string(raw)
		}
	}
	return res
}

// result is kube's refusal: `<resource> "<name>" is forbidden:
// ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request:
// <message>`, with the validation's reason (Invalid when none) and its
// code, the message repeated as a cause.
func (d denial) result(a *admission.Attributes) *admission.Result {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	if d.binding == "" {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	res := plugin.Forbidden(a, errors.New(msg))
	res.Status.Reason, res.Status.Code = d.reason, reasonCode(d.reason)
	if res.Status.Details == nil {
		res.Status.Details = &metav1.StatusDetails{}
	}
	res.Status.Details.Causes = append(res.Status.Details.Causes, metav1.StatusCause{Message: msg})
	return res
}

// reasonCode is the HTTP code of a validation's reason, kube's mapping.
func reasonCode(r metav1.StatusReason) int32 {
	codes := map[metav1.StatusReason]int32{
		metav1.StatusReasonForbidden:             http.StatusForbidden,
		metav1.StatusReasonUnauthorized:          http.StatusUnauthorized,
		metav1.StatusReasonRequestEntityTooLarge: http.StatusRequestEntityTooLarge,
	}
	if c, ok := codes[r]; ok {
		return c
	}
	return http.StatusUnprocessableEntity
}
