package celenv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
)

// PerCallLimit bounds the cost of one evaluation of one expression, as
// kube's per-call limit does, so that a policy cannot make every write
// it matches spin.
const PerCallLimit = 1000000

// Result types an expression must have where its field requires one.
var (
	// Bool is what validations and match conditions return.
	Bool = cel.BoolType
	// String is what a messageExpression returns.
	String = cel.StringType
	// StringOrNull is what an audit annotation's valueExpression returns.
	StringOrNull = cel.NullableType(cel.StringType)
	// Any is a variable's expression: any type.
	Any = cel.DynType
)

// ErrCompile is the error of an expression that does not compile.
var ErrCompile = errors.New("compilation failed")

// Compile parses and checks expr and makes it a program bounded by
// PerCallLimit. The error, wrapping ErrCompile, reads as kube's does:
// "compilation failed: ERROR: <input>:1:3: ..."; an expression whose type
// is known not to be want is refused with "must evaluate to <want>".
func Compile(expr string, want *cel.Type) (cel.Program, error) {
	prg, _, err := compileIn(Env, expr, want)
	return prg, err
}

// compileIn is Compile in the environment envFn builds, also returning the
// checked expression for callers that inspect it.
func compileIn(envFn func() (*cel.Env, error), expr string, want *cel.Type) (cel.Program, *cel.Ast, error) {
	env, err := envFn()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: environment: %w", ErrCompile, err)
	}
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, nil, fmt.Errorf("%w: %s", ErrCompile, strings.TrimSpace(issues.String()))
	}
	if !returns(ast.OutputType(), want) {
		return nil, nil, fmt.Errorf("%w: must evaluate to %s", ErrCompile, typeName(want))
	}
	prg, err := env.Program(ast, cel.CostLimit(PerCallLimit), cel.CostTracking(actualCost{}),
		cel.InterruptCheckFrequency(checkFrequency), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCompile, err)
	}
	return prg, ast, nil
}

// returns reports whether an expression of type got can produce want:
// dyn (a field of a dynamically typed object) may be anything.
func returns(got, want *cel.Type) bool {
	if want == nil || want.IsExactType(cel.DynType) || got.IsExactType(cel.DynType) {
		return true
	}
	if want.IsAssignableType(got) {
		return true
	}
	return want.IsExactType(StringOrNull) && (got.IsExactType(cel.StringType) || got.IsExactType(cel.NullType))
}

func typeName(t *cel.Type) string {
	if t.IsExactType(StringOrNull) {
		return "string or null"
	}
	return t.String()
}
