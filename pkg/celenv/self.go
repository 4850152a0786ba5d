package celenv

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
)

// The variables of a CustomResourceDefinition's x-kubernetes-validations
// rule, under kube's names: the value the rule is attached to and, on an
// update, its previous value.
const (
	Self    = "self"
	OldSelf = "oldSelf"
)

// SelfEnv is the environment x-kubernetes-validations rules compile in:
// self and oldSelf, dynamically typed, with the same libraries as policy
// expressions.
var SelfEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(append([]cel.EnvOption{
		cel.Variable(Self, cel.DynType),
		cel.Variable(OldSelf, cel.DynType),
	}, libraries()...)...)
})

// SelfRule is a compiled x-kubernetes-validations expression.
type SelfRule struct {
	cel.Program
	ast *cel.Ast
	// Transition means the expression reads oldSelf, so, as in kube, it is
	// only evaluated on an update where the old value exists.
	Transition bool
}

// CompileSelf compiles a rule (want Bool) or a messageExpression (want
// String) in SelfEnv; errors read as Compile's.
func CompileSelf(expr string, want *cel.Type) (*SelfRule, error) {
	prg, ast, err := compileIn(SelfEnv, expr, want)
	if err != nil {
		return nil, err
	}
	rule := &SelfRule{Program: prg, ast: ast}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == OldSelf {
			rule.Transition = true
		}
	}
	return rule, nil
}

// MaxCost is the most one evaluation of the rule can cost, estimated
// before it runs from the largest sizes its values can have; a value
// sizes knows no bound for is priced as unbounded.
func (r *SelfRule) MaxCost(sizes Sizes) (uint64, error) {
	env, err := SelfEnv()
	if err != nil {
		return 0, err
	}
	est, err := env.EstimateCost(r.ast, estimator{sizes: sizes})
	if err != nil {
		return 0, fmt.Errorf("cost estimation failed: %w", err)
	}
	return est.Max, nil
}
