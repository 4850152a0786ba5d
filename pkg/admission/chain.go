package admission

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// chain runs admitters in kube's two phases.
type chain struct {
	mutating   []Admitter
	validating []Admitter
}

// Chain runs admitters as kube-apiserver runs its admission plugins and
// webhooks: first every mutating admitter (see Mutating) in the order
// given, each seeing the object as patched by those before it, then every
// validating one, in the order given, on the final object.
//
// The first denial stops the chain and is its answer. The first error stops
// it too and is returned with a nil Result: an admitter that could not
// decide leaves the write undecided, and the caller fails closed. Warnings
// and audit annotations accumulate across the admitters asked (the first
// value of an annotation key wins, as kube keeps it). An allow carries one
// patch, the mutating admitters' patches in order, against the object the
// chain was given.
//
// A chain is itself mutating when it holds a mutating admitter, so chains
// nest; a nested chain runs whole, in the outer chain's phase for it.
func Chain(admitters ...Admitter) (Admitter, error) {
	c := &chain{}
	for i, a := range admitters {
		if a == nil {
			return nil, fmt.Errorf("%w: chain: admitter %d is nil", ErrInvalidConfig, i)
		}
		if PhaseOf(a) == PhaseMutating {
			c.mutating = append(c.mutating, a)
		} else {
			c.validating = append(c.validating, a)
		}
	}
	return c, nil
}

func (c *chain) phase() Phase {
	if len(c.mutating) > 0 {
		return PhaseMutating
	}
	return PhaseValidating
}

// Admit implements Admitter. It never changes a.
func (c *chain) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	cur, err := jsonAttributes(a)
	if err != nil {
		return nil, err
	}
	sum := &Result{Allowed: true}
	for i, m := range c.mutating {
		res, err := admitOne(ctx, m, cur)
		if err != nil {
			return nil, fmt.Errorf("mutating admitter %d: %w", i, err)
		}
		if !merge(sum, res) {
			return sum, nil
		}
		if err := applyTo(cur, sum, res.Patch); err != nil {
			return nil, fmt.Errorf("mutating admitter %d: %w", i, err)
		}
	}
	for i, v := range c.validating {
		res, err := admitOne(ctx, v, cur)
		if err != nil {
			return nil, fmt.Errorf("validating admitter %d: %w", i, err)
		}
		if !merge(sum, res) {
			return sum, nil
		}
	}
	return sum, nil
}

// jsonAttributes copies a with its objects as JSON in Raw only, the form
// every admitter of the chain sees, local or remote.
func jsonAttributes(a *Attributes) (*Attributes, error) {
	cur := *a
	for _, ext := range []*runtime.RawExtension{&cur.Object, &cur.OldObject, &cur.Options} {
		raw, err := rawJSON(*ext)
		if err != nil {
			return nil, err
		}
		*ext = runtime.RawExtension{Raw: raw}
	}
	return &cur, nil
}

// admitOne asks a about a copy of cur, so that an admitter that writes to
// its attributes cannot change what the next one sees.
func admitOne(ctx context.Context, a Admitter, cur *Attributes) (*Result, error) {
	attrs := *cur
	return Ask(ctx, PhaseOf(a), a, &attrs)
}

// merge adds res's warnings and annotations to sum and reports whether the
// chain goes on; on a denial it makes sum that denial.
func merge(sum, res *Result) bool {
	sum.Warnings = append(sum.Warnings, res.Warnings...)
	for k, v := range res.AuditAnnotations {
		if _, seen := sum.AuditAnnotations[k]; !seen {
			if sum.AuditAnnotations == nil {
				sum.AuditAnnotations = make(map[string]string, len(res.AuditAnnotations))
			}
			sum.AuditAnnotations[k] = v
		}
	}
	if res.Allowed {
		return true
	}
	sum.Allowed, sum.Patch = false, nil
	if res.Status != nil {
		s := *res.Status
		sum.Status = &s
	}
	return false
}

// applyTo applies a mutating admitter's patch to the object the next
// admitter sees, and adds it to the chain's patch.
func applyTo(cur *Attributes, sum *Result, patch []byte) error {
	if len(patch) == 0 {
		return nil
	}
	obj, err := ApplyPatch(cur.Object.Raw, patch)
	if err != nil {
		return err
	}
	all, err := AppendPatch(sum.Patch, patch)
	if err != nil {
		return err
	}
	cur.Object.Raw, sum.Patch = obj, all
	return nil
}
