package admission

import "context"

// Phase is when an admitter runs: kube-apiserver runs every mutating
// admitter before any validating one, so that validation sees the object
// that will be stored.
type Phase int

const (
	// PhaseValidating admitters only allow or deny; a patch from one is an
	// error. It is the zero value: an admitter nobody marked cannot change
	// objects.
	PhaseValidating Phase = iota
	// PhaseMutating admitters may also return a patch, and run first.
	PhaseMutating
)

// String names the phase for logs and test failures.
func (p Phase) String() string {
	switch p {
	case PhaseValidating:
		return "Validating"
	case PhaseMutating:
		return "Mutating"
	}
	return "Phase(invalid)"
}

// phaser is implemented by admitters that know their phase: the Mutating and
// Validating wrappers and chains.
type phaser interface {
	phase() Phase
}

// PhaseOf is a's phase: the one it was marked with, Mutating for a chain
// holding a mutating admitter, Validating for anything else.
func PhaseOf(a Admitter) Phase {
	if p, ok := a.(phaser); ok {
		return p.phase()
	}
	return PhaseValidating
}

// phased is an admitter marked with a phase.
type phased struct {
	admitter Admitter
	p        Phase
}

// Mutating marks a as a mutating admitter: it may return patches, and Chain
// runs it in the first phase. Mutating(nil) is nil.
func Mutating(a Admitter) Admitter {
	return withPhase(a, PhaseMutating)
}

// Validating marks a as a validating admitter, which is what an unmarked
// admitter is too; it undoes Mutating, for a remote chain that must only
// validate. Validating(nil) is nil.
func Validating(a Admitter) Admitter {
	return withPhase(a, PhaseValidating)
}

func withPhase(a Admitter, p Phase) Admitter {
	if a == nil {
		return nil
	}
	if inner, ok := a.(phased); ok {
		a = inner.admitter
	}
	return phased{admitter: a, p: p}
}

// Admit implements Admitter.
func (a phased) Admit(ctx context.Context, attrs *Attributes) (*Result, error) {
	return a.admitter.Admit(ctx, attrs)
}

func (a phased) phase() Phase { return a.p }
