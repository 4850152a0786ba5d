package webhooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// conditions are a webhook's compiled matchConditions, in the CEL
// environment the registry checked them with (pkg/celenv). kube's
// variables object, oldObject and request are bound; authorizer is not
// declared, so a condition using it does not compile.
type conditions struct {
	programs []namedProgram
	err      error // a condition that does not compile
}

type namedProgram struct {
	name string
	prg  cel.Program
}

// compileConditions compiles each expression, which must be a bool.
func compileConditions(mcs []admissionregistrationv1.MatchCondition) *conditions {
	c := &conditions{}
	for _, mc := range mcs {
		prg, err := celenv.Compile(mc.Expression, celenv.Bool)
		if err != nil {
			c.err = errors.Join(c.err, fmt.Errorf("matchCondition %q: %w", mc.Name, err))
			continue
		}
		c.programs = append(c.programs, namedProgram{name: mc.Name, prg: prg})
	}
	return c
}

// match evaluates the conditions as kube does: false as soon as one is
// false (whatever errors others had), else an error if any failed, else
// true. vars builds the variables once, and only if there are conditions.
func (c *conditions) match(ctx context.Context, vars func() (map[string]any, error)) (bool, error) {
	if c.err != nil {
		return false, c.err
	}
	if len(c.programs) == 0 {
		return true, nil
	}
	in, err := vars()
	if err != nil {
		return false, err
	}
	// The conditions of one call share kube's runtime budget.
	budget := celenv.NewBudget(celenv.RuntimeCostBudget)
	var errs []error
	for _, p := range c.programs {
		out, err := budget.EvalContext(ctx, p.prg, in)
		if err != nil {
			errs = append(errs, fmt.Errorf("matchCondition %q: %w", p.name, err))
			continue
		}
		b, ok := out.(types.Bool)
		if !ok {
			errs = append(errs, fmt.Errorf("matchCondition %q evaluated to %s, not bool", p.name, out.Type()))
			continue
		}
		if !b {
			return false, nil
		}
	}
	if len(errs) > 0 {
		return false, errors.Join(errs...)
	}
	return true, nil
}
