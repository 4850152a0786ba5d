package admission

import (
	"context"
	"fmt"
)

// Ask asks a, an admitter of phase p, about attrs and holds its answer to
// the Admitter contract, so that every caller (the chain, the webhook
// handler, the registry) enforces the same rules: a result or an error, a
// patch only from a mutating admitter, and only a well-formed one. A patch
// on a denial is dropped, as kube drops it: nothing is stored anyway.
func Ask(ctx context.Context, p Phase, a Admitter, attrs *Attributes) (*Result, error) {
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
	if p != PhaseMutating {
		return nil, ErrValidatingPatch
	}
	out := *res
	if !out.Allowed {
		out.Patch = nil
		return &out, nil
	}
	patch, err := decodePatch(out.Patch)
	if err != nil {
		return nil, err
	}
	if len(patch) == 0 {
		out.Patch = nil
	}
	return &out, nil
}
