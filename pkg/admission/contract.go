package admission

import (
	"context"
	"fmt"
)

// admit asks a and holds its answer to the Admitter contract, so that the
// chain and the handler enforce the same rules: a result or an error, a
// patch only from a mutating admitter, and only a well-formed one. A patch
// on a denial is dropped, as kube drops it: nothing is stored anyway.
func admit(ctx context.Context, a Admitter, attrs *Attributes) (*Result, error) {
	res, err := a.Admit(ctx, attrs)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("%w: no result and no error", ErrInvalidResult)
	}
	if len(res.Patch) == 0 {
		return res, nil
	}
	if PhaseOf(a) != PhaseMutating {
		return nil, ErrValidatingPatch
	}
	out := *res
	if !out.Allowed {
		out.Patch = nil
		return &out, nil
	}
	p, err := decodePatch(out.Patch)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		out.Patch = nil
	}
	return &out, nil
}
