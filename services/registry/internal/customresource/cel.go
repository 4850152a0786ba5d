package customresource

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// compiledRule is one x-kubernetes-validations entry, compiled.
type compiledRule struct {
	apiextensionsv1.ValidationRule
	rule    *celenv.SelfRule
	message *celenv.SelfRule // messageExpression, or nil
}

// compileRules compiles the rules of n and every node below it. The CRD's
// validation refused rules that do not compile; a CRD stored before that
// check still fails here, and is then not served.
func compileRules(n *node) error {
	if n == nil {
		return nil
	}
	for i, r := range n.props.XValidations {
		c := compiledRule{ValidationRule: r}
		var err error
		if c.rule, err = celenv.CompileSelf(r.Rule, celenv.Bool); err != nil {
			return fmt.Errorf("x-kubernetes-validations[%d].rule: %w", i, err)
		}
		if r.MessageExpression != "" {
			if c.message, err = celenv.CompileSelf(r.MessageExpression, celenv.String); err != nil {
				return fmt.Errorf("x-kubernetes-validations[%d].messageExpression: %w", i, err)
			}
		}
		n.rules = append(n.rules, c)
	}
	for _, c := range n.properties {
		if err := compileRules(c); err != nil {
			return err
		}
	}
	if err := compileRules(n.additional); err != nil {
		return err
	}
	return compileRules(n.items)
}

// celErrors evaluates the rules on x and everything below it. old is the
// value's counterpart in the previous object (nil when there is none), so
// transition rules (those reading oldSelf) run only where it exists. All
// the evaluations share budget: once it runs out, or one call reaches the
// per-call limit, no further rule runs, as in kube.
func celErrors(x, old any, n *node, p *field.Path, budget *celenv.Budget) field.ErrorList {
	if n == nil || x == nil || budget.Exhausted() {
		return nil
	}
	var errs field.ErrorList
	for _, r := range n.rules {
		err, stop := r.check(x, old, n, p, budget)
		if err != nil {
			errs = append(errs, err)
		}
		if stop {
			return errs
		}
	}
	switch x := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		for k, v := range x {
			var oldV any
			if oldMap != nil {
				oldV = oldMap[k]
			}
			errs = append(errs, celErrors(v, oldV, n.child(k), childPath(p, k), budget)...)
			if budget.Exhausted() {
				return errs
			}
		}
	case []any:
		oldList, _ := old.([]any)
		for i, v := range x {
			errs = append(errs, celErrors(v, counterpart(v, oldList, n), n.item(), indexPath(p, i), budget)...)
			if budget.Exhausted() {
				return errs
			}
		}
	}
	return errs
}

// counterpart finds an item's previous value in a list kube can correlate:
// a list-type map by its keys, a set by value. Other lists have none.
func counterpart(v any, old []any, n *node) any {
	if len(old) == 0 || n.props.XListType == nil {
		return nil
	}
	switch *n.props.XListType {
	case "set":
		for _, o := range old {
			if fmt.Sprint(o) == fmt.Sprint(v) {
				return o
			}
		}
	case "map":
		item, _ := v.(map[string]any)
		for _, o := range old {
			if om, ok := o.(map[string]any); ok && sameKeys(item, om, n.props.XListMapKeys) {
				return o
			}
		}
	}
	return nil
}

func sameKeys(a, b map[string]any, keys []string) bool {
	for _, k := range keys {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
			return false
		}
	}
	return a != nil
}

// check evaluates one rule, returning its error when it fails, and
// whether no further rule may run.
func (r compiledRule) check(x, old any, n *node, p *field.Path, budget *celenv.Budget) (*field.Error, bool) {
	if r.rule.Transition && old == nil {
		return nil, false
	}
	vars := map[string]any{celenv.Self: x, celenv.OldSelf: old}
	out, err := budget.Eval(r.rule.Program, vars)
	switch {
	case errors.Is(err, celenv.ErrBudgetExhausted):
		return field.Invalid(rootOr(p), n.props.Type, outOfBudget), true
	case celenv.IsCallCostExceeded(err):
		return r.stopped(rootOr(p), n.props.Type, err), true
	case err != nil:
		return field.Invalid(r.errorPath(p), n.props.Type, fmt.Sprintf("%s: %v", ruleText(r.Rule), err)), false
	}
	if ok, isBool := out.Value().(bool); isBool && ok {
		return nil, false
	}
	return r.failure(r.errorPath(p), n.props.Type, vars, budget)
}

// outOfBudget is kube's error once an object's rules have cost more than
// RuntimeCostBudget.
const outOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// stopped is kube's error of a rule stopped at the per-call limit.
func (r compiledRule) stopped(at *field.Path, typ string, err error) *field.Error {
	return field.Invalid(at, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %s", err, r.errorString()))
}

// errorString names the rule in errors: its message, or its text.
func (r compiledRule) errorString() string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return strings.TrimSpace(r.Rule)
}

func ruleText(rule string) string { return "failed rule: " + rule }

// failure is the error of a rule that evaluated to false, with its
// message (or messageExpression's) and reason.
func (r compiledRule) failure(at *field.Path, typ string, vars map[string]any, budget *celenv.Budget) (*field.Error, bool) {
	msg := r.Message
	if msg == "" {
		msg = ruleText(r.Rule)
	}
	if r.message != nil {
		out, err := budget.Eval(r.message.Program, vars)
		switch {
		case errors.Is(err, celenv.ErrBudgetExhausted):
			return field.Invalid(at, typ, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"), true
		case celenv.IsCallCostExceeded(err):
			return field.Invalid(at, typ, fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.MessageExpression)), true
		case err == nil:
			if s, ok := out.Value().(string); ok && strings.TrimSpace(s) != "" {
				msg = s
			}
		}
	}
	if r.Reason == nil {
		return field.Invalid(at, typ, msg), false
	}
	switch *r.Reason {
	case apiextensionsv1.FieldValueForbidden:
		return field.Forbidden(at, msg), false
	case apiextensionsv1.FieldValueRequired:
		return field.Required(at, msg), false
	case apiextensionsv1.FieldValueDuplicate:
		return field.Duplicate(at, typ), false
	}
	return field.Invalid(at, typ, msg), false
}

// errorPath is where a failure is reported: the node's path, extended by
// the rule's fieldPath (".spec.x", ".list[0]", "['a.b']").
func (r compiledRule) errorPath(p *field.Path) *field.Path {
	if r.FieldPath == "" {
		return rootOr(p)
	}
	steps, err := splitFieldPath(r.FieldPath)
	if err != nil {
		return rootOr(p)
	}
	for _, s := range steps {
		if s.index >= 0 {
			p = indexPath(p, s.index)
		} else {
			p = childPath(p, s.key)
		}
	}
	return p
}

func rootOr(p *field.Path) *field.Path {
	if p == nil {
		return field.NewPath("<root>")
	}
	return p
}

// step is one key, or index (>= 0), of a fieldPath.
type step struct {
	key   string
	index int
}

// splitFieldPath splits a rule's fieldPath into its keys and indices.
func splitFieldPath(fp string) ([]step, error) {
	var steps []step
	for fp != "" {
		switch {
		case strings.HasPrefix(fp, "."):
			fp = fp[1:]
			end := strings.IndexAny(fp, ".[")
			if end < 0 {
				end = len(fp)
			}
			steps, fp = append(steps, step{key: fp[:end], index: -1}), fp[end:]
		case strings.HasPrefix(fp, "['"):
			end := strings.Index(fp, "']")
			if end < 0 {
				return nil, errors.New("unterminated key")
			}
			steps, fp = append(steps, step{key: fp[2:end], index: -1}), fp[end+2:]
		case strings.HasPrefix(fp, "["):
			end := strings.Index(fp, "]")
			if end < 0 {
				return nil, errors.New("unterminated index")
			}
			i, err := strconv.Atoi(fp[1:end])
			if err != nil {
				return nil, err
			}
			steps, fp = append(steps, step{index: i}), fp[end+1:]
		default:
			return nil, fmt.Errorf("unexpected %q", fp)
		}
	}
	return steps, nil
}
