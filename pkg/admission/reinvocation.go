package admission

import (
	"context"
	"fmt"
	"sync"
)

// Reinvocation is one write's record of kube's reinvocation: whether the
// mutating chain runs a second time, and whether this is that second run,
// with what each plugin keeps between the two (keyed by its name). It has
// the methods of kube's admission.ReinvocationContext, so kube's own
// plugins (MutatingAdmissionPolicy) keep theirs in it too.
type Reinvocation struct {
	mu             sync.Mutex
	isReinvoke     bool
	shouldReinvoke bool
	values         map[string]any
}

// IsReinvoke tells whether this is the chain's second run.
func (r *Reinvocation) IsReinvoke() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.isReinvoke
}

// SetIsReinvoke marks the second run.
func (r *Reinvocation) SetIsReinvoke() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.isReinvoke = true
}

// ShouldReinvoke tells whether a plugin asked for a second run.
func (r *Reinvocation) ShouldReinvoke() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shouldReinvoke
}

// SetShouldReinvoke asks for a second run: a webhook or policy changed
// the object, which those called before it with reinvocationPolicy
// IfNeeded, and kube's built-in plugins, are to see.
func (r *Reinvocation) SetShouldReinvoke() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shouldReinvoke = true
}

// Value is what plugin kept; nil if nothing.
func (r *Reinvocation) Value(plugin string) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values[plugin]
}

// SetValue keeps v for plugin.
func (r *Reinvocation) SetValue(plugin string, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]any{}
	}
	r.values[plugin] = v
}

type reinvocationKey struct{}

// ReinvocationFrom is the write's Reinvocation that ctx carries (see
// Reinvoking); nil outside one.
func ReinvocationFrom(ctx context.Context) *Reinvocation {
	r, _ := ctx.Value(reinvocationKey{}).(*Reinvocation)
	return r
}

// reinvoking is Reinvoking's admitter.
type reinvoking struct {
	chain Admitter
}

// Reinvoking runs a mutating chain as kube-apiserver runs its mutating
// admission plugins: once, and, when a plugin asked for it through the
// Reinvocation in the context, a second time on the object the first run
// made; in the second every plugin runs again, and the webhooks and
// policies decide by their reinvocationPolicy whether they do (kube
// guarantees nothing more: no third run). The answer is both runs' as one:
// the patches in order against the object given, every warning and audit
// annotation, the first denial.
func Reinvoking(chain Admitter) Admitter {
	return Mutating(reinvoking{chain: chain})
}

// Admit implements Admitter. It never changes a.
func (r reinvoking) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	rc := &Reinvocation{}
	ctx = context.WithValue(ctx, reinvocationKey{}, rc)
	first, err := r.chain.Admit(ctx, a)
	if err != nil || first == nil || !first.Allowed || !rc.ShouldReinvoke() {
		return first, err
	}
	rc.SetIsReinvoke()
	cur, err := jsonAttributes(a)
	if err != nil {
		return nil, err
	}
	sum := &Result{Allowed: true}
	merge(sum, first)
	if err := applyTo(cur, sum, first.Patch); err != nil {
		return nil, fmt.Errorf("reinvocation: %w", err)
	}
	second, err := r.chain.Admit(ctx, cur)
	if err != nil {
		return nil, err
	}
	if !merge(sum, second) {
		return sum, nil
	}
	if err := applyTo(cur, sum, second.Patch); err != nil {
		return nil, fmt.Errorf("reinvocation: %w", err)
	}
	return sum, nil
}
