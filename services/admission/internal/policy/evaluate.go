package policy

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// maxMessageBytes bounds a messageExpression's result, as kube does; a
// longer one falls back to the static message.
const maxMessageBytes = 5 * 1024

// maxAnnotationBytes bounds an audit annotation's value, as kube's does.
const maxAnnotationBytes = 10 * 1024

// decision is what one validation (or an expression error) says about a
// request: nothing (allowed), or a failure with its message and reason.
type decision struct {
	failed  bool
	message string
	reason  metav1.StatusReason
	index   int // the validation's index, for the Audit annotation
}

// evaluation is what a policy said through one binding with one param.
type evaluation struct {
	failures    []decision // validations that failed, and errors under failurePolicy Fail
	annotations map[string]string
	// annotationErrors are audit annotations that could not be computed
	// under failurePolicy Fail: denials whatever the binding's actions, as
	// in kube.
	annotationErrors []decision
}

// inputs are CEL's variables apart from params and variables.
type inputs map[string]any

// evaluate runs a compiled policy on one request with one param (nil
// when none): its match conditions, then its validations and audit
// annotations, with variables computed once each.
func (c *compiled) evaluate(in inputs, param any) evaluation {
	// Every expression of one binding and param shares kube's runtime
	// budget, so that many cheap calls cannot add up to seconds.
	budget := celenv.NewBudget(celenv.RuntimeCostBudget)
	vars := map[string]any{}
	for k, v := range in {
		vars[k] = v
	}
	vars[celenv.Params] = param
	vars[celenv.Variables] = c.variableValues(vars, budget)
	var out evaluation
	if ok, err := c.conditionsMatch(vars, budget); err != nil {
		return c.onError(out, err)
	} else if !ok {
		return out
	}
	for i, v := range c.validations {
		d, err := v.decide(vars, budget)
		if err != nil {
			out = c.onError(out, err)
			if budget.Exhausted() {
				return out
			}
			continue
		}
		if d.failed {
			d.index = i
			out.failures = append(out.failures, d)
		}
	}
	return c.annotate(out, vars, budget)
}

// onError is an expression error under the policy's failurePolicy: a
// failure with Fail (the default), nothing with Ignore.
func (c *compiled) onError(out evaluation, err error) evaluation {
	if !c.ignoresErrors() {
		out.failures = append(out.failures, errorDecision(err))
	}
	return out
}

// annotationError is an audit annotation's error under failurePolicy.
func (c *compiled) annotationError(out evaluation, err error) evaluation {
	if !c.ignoresErrors() {
		out.annotationErrors = append(out.annotationErrors, errorDecision(err))
	}
	return out
}

func (c *compiled) ignoresErrors() bool {
	fp := c.policy.Spec.FailurePolicy
	return fp != nil && *fp == admv1.Ignore
}

// errorDecision is the failure an error makes: kube reports it as Invalid.
func errorDecision(err error) decision {
	return decision{failed: true, message: err.Error(), reason: metav1.StatusReasonInvalid}
}

// variableValues computes the policy's variables in order, each seeing
// the ones before it. A variable whose expression fails holds the error,
// which fails only the expressions that use it, as kube's lazily
// computed variables do.
func (c *compiled) variableValues(vars map[string]any, budget *celenv.Budget) ref.Val {
	values := map[string]ref.Val{}
	vars[celenv.Variables] = types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{})
	for _, v := range c.variables {
		val, err := budget.Eval(v.prg, vars)
		if err != nil {
			val = types.NewErr("variable %q: %v", v.name, err)
		}
		values[v.name] = val
		vars[celenv.Variables] = refMap(values)
	}
	return refMap(values)
}

func refMap(values map[string]ref.Val) ref.Val {
	m := make(map[ref.Val]ref.Val, len(values))
	for k, v := range values {
		m[types.String(k)] = v
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, m)
}

// conditionsMatch evaluates the match conditions: all true, or false as
// soon as one is false; an error only if none is false, as in kube.
func (c *compiled) conditionsMatch(vars map[string]any, budget *celenv.Budget) (bool, error) {
	var firstErr error
	for _, m := range c.matchConditions {
		val, err := budget.Eval(m.prg, vars)
		switch {
		case err != nil:
			if firstErr == nil {
				firstErr = fmt.Errorf("failed to evaluate match condition %q: %w", m.name, err)
			}
		case val == types.False:
			return false, nil
		case val != types.True:
			if firstErr == nil {
				firstErr = fmt.Errorf("match condition %q did not evaluate to a bool", m.name)
			}
		}
	}
	return firstErr == nil, firstErr
}

// decide evaluates one validation; an error is for failurePolicy to
// decide on.
func (v *validation) decide(vars map[string]any, budget *celenv.Budget) (decision, error) {
	val, err := budget.Eval(v.prg, vars)
	if err != nil {
		return decision{}, fmt.Errorf("expression '%s' resulted in error: %w", strings.TrimSpace(v.Expression), err)
	}
	if val == types.True {
		return decision{}, nil
	}
	reason := metav1.StatusReasonInvalid
	if v.Reason != nil {
		reason = *v.Reason
	}
	return decision{failed: true, message: v.failureMessage(vars, budget), reason: reason}, nil
}

// failureMessage is kube's choice: the messageExpression's result when it
// is a usable one-line string, else message, else the expression.
func (v *validation) failureMessage(vars map[string]any, budget *celenv.Budget) string {
	if v.message != nil {
		if val, err := budget.Eval(v.message, vars); err == nil {
			if s, ok := val.Value().(string); ok {
				s = strings.TrimSpace(s)
				if s != "" && len(s) <= maxMessageBytes && !strings.Contains(s, "\n") {
					return s
				}
			}
		}
	}
	if m := strings.TrimSpace(v.Message); m != "" {
		return m
	}
	return "failed expression: " + strings.TrimSpace(v.Expression)
}

// annotate evaluates the audit annotations: a non-empty string is
// published under "<policy>/<key>", null or "" is left out, anything else
// is an error under failurePolicy.
func (c *compiled) annotate(out evaluation, vars map[string]any, budget *celenv.Budget) evaluation {
	for _, a := range c.annotations {
		val, err := budget.Eval(a.prg, vars)
		if err != nil {
			out = c.annotationError(out, fmt.Errorf("valueExpression '%s' resulted in error: %w", a.expr, err))
			continue
		}
		switch v := val.Value().(type) {
		case string:
			if v = strings.TrimSpace(v); v != "" {
				if out.annotations == nil {
					out.annotations = map[string]string{}
				}
				out.annotations[c.policy.Name+"/"+a.name] = truncate(v, maxAnnotationBytes)
			}
		default:
			if val.Type() != types.NullType {
				out = c.annotationError(out, fmt.Errorf("valueExpression '%s' resulted in unsupported return type: %v. Return type must be either string or null.", a.expr, val.Type()))
			}
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
