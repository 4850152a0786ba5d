package admission

import (
	"context"
	"slices"
)

// wanter is an admitter that can tell, from a request's attributes without
// its objects or options, that it has nothing to say about it.
type wanter interface {
	wants(ctx context.Context, a *Attributes) bool
}

// Wants reports whether adm may want to be asked about a, whose Object,
// OldObject and Options need not be filled in: false only when every
// admitter adm holds is a Filter whose known rules match none of it. A
// caller asks before encoding the objects of a review, so that a write no
// rule matches costs neither the encoding nor the call.
func Wants(ctx context.Context, adm Admitter, a *Attributes) bool {
	if w, ok := adm.(wanter); ok {
		return w.wants(ctx, a)
	}
	return true
}

func (f *filtered) wants(ctx context.Context, a *Attributes) bool {
	rules, ok := f.rules(ctx)
	return !ok || matchesIn(ctx, namespaceStatesFrom(ctx), rules, a)
}

func (a phased) wants(ctx context.Context, attrs *Attributes) bool {
	return Wants(ctx, a.admitter, attrs)
}

func (c *chain) wants(ctx context.Context, a *Attributes) bool {
	want := func(adm Admitter) bool { return Wants(ctx, adm, a) }
	return slices.ContainsFunc(c.mutating, want) || slices.ContainsFunc(c.validating, want)
}
