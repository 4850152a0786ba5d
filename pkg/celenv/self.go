package celenv

import (
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
	rule := &SelfRule{Program: prg}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == OldSelf {
			rule.Transition = true
		}
	}
	return rule, nil
}
