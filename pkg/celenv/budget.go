package celenv

import (
	"context"
	"errors"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
)

// ErrBudgetExhausted is the error of an evaluation that cost more than
// what was left of its Budget, worded as kube's.
var ErrBudgetExhausted = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// Budget is what a series of evaluations may cost in all, as kube bounds
// the rules of one custom resource, or the expressions of one policy
// binding: each call is bounded by PerCallLimit, and a Budget keeps many
// cheap calls from adding up to minutes.
type Budget struct{ remaining uint64 }

// NewBudget is a budget of total cost units (RuntimeCostBudget as kube's).
func NewBudget(total uint64) *Budget { return &Budget{remaining: total} }

// Exhausted reports whether a call has already run out of the budget; no
// further call is then made.
func (b *Budget) Exhausted() bool { return b.remaining == 0 }

// Eval evaluates prg and charges what it cost. A call costing more than
// what is left empties the budget and answers ErrBudgetExhausted, its
// result dropped, as kube does; an exhausted budget evaluates nothing.
func (b *Budget) Eval(prg cel.Program, vars any) (ref.Val, error) {
	return b.EvalContext(context.Background(), prg, vars)
}

// EvalContext is Eval, ending the evaluation early when ctx is done.
func (b *Budget) EvalContext(ctx context.Context, prg cel.Program, vars any) (ref.Val, error) {
	if b.Exhausted() {
		return nil, ErrBudgetExhausted
	}
	out, det, err := prg.ContextEval(ctx, vars)
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	if cost > b.remaining {
		b.remaining = 0
		return nil, ErrBudgetExhausted
	}
	b.remaining -= cost
	return out, err
}
