package admission

import "context"

// RulesFunc says which requests an admitter wants: its rules and true, or
// false when they are not known (not fetched yet, or the fetch failed).
type RulesFunc func(ctx context.Context) ([]Rule, bool)

// filtered is an admitter asked only about the requests its rules match.
type filtered struct {
	admitter Admitter
	rules    RulesFunc
}

// Filter is a, asked only about requests its rules match, as kube-apiserver
// calls a webhook only about requests its configuration's rules match: any
// other request is allowed without asking. When the rules are not known, a
// is asked about everything, so that not knowing never skips a check.
// A rule's Namespace condition is checked with the NamespaceStates the
// request's context carries (WithNamespaceStates); without them the rule
// matches whatever the namespace's state. Filter keeps a's phase.
func Filter(a Admitter, rules RulesFunc) Admitter {
	if a == nil {
		return nil
	}
	return &filtered{admitter: a, rules: rules}
}

// Admit implements Admitter.
func (f *filtered) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	if !f.wants(ctx, a) {
		return Allow(), nil
	}
	return f.admitter.Admit(ctx, a)
}

func (f *filtered) phase() Phase { return PhaseOf(f.admitter) }
