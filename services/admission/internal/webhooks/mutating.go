package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Mutating is the MutatingAdmissionWebhook plugin's admitter. Its
// CurrentRules are the mutating webhooks' rules.
type Mutating struct {
	d *dispatcher
}

var (
	_ admission.Admitter  = (*Mutating)(nil)
	_ plugin.DynamicRules = (*Mutating)(nil)
)

// CurrentRules implements plugin.DynamicRules.
func (m *Mutating) CurrentRules() admission.Rules { return m.d.rulesFor(admission.PhaseMutating) }

// pluginName keys the plugin's record in a write's Reinvocation.
const pluginName = "MutatingAdmissionWebhook"

// Admit calls the mutating webhooks a matches, one after the other, each
// on the object as the ones before patched it. The first denial (or
// failure, under failurePolicy Fail) is the answer; an allow carries every
// patch, in order, against a's object. A change asks for the chain's
// second run (admission.Reinvoking), in which only the webhooks with
// reinvocationPolicy IfNeeded that a later change followed are called
// again; alone, outside a chain, the plugin runs twice itself.
func (m *Mutating) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if admission.ReinvocationFrom(ctx) == nil {
		return admission.Reinvoking(admission.AdmitterFunc(m.run)).Admit(ctx, a)
	}
	return m.run(ctx, a)
}

// run is one run of the chain through the plugin, as kube's dispatcher
// makes it.
func (m *Mutating) run(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	hooks, err := m.d.prepare(ctx, a)
	if err != nil {
		return nil, err
	}
	if len(hooks) == 0 {
		return admission.Allow(), nil
	}
	rc := admission.ReinvocationFrom(ctx)
	rec, _ := rc.Value(pluginName).(*callRecord)
	if rec == nil {
		rec = &callRecord{previously: map[string]bool{}, again: map[string]bool{}}
		rc.SetValue(pluginName, rec)
	}
	if rc.IsReinvoke() && !sameJSON(rec.lastOutput, a.Object.Raw) {
		// The plugins before this one changed the object in the second
		// run: every IfNeeded webhook called so far sees it again.
		rec.requireAgain()
	}
	cur := *a
	r := &mutation{d: m.d, cur: &cur, sum: newSummary(), rc: rc, rec: rec}
	defer func() { rec.lastOutput = cur.Object.Raw }()
	for i, h := range hooks {
		if deny := r.invoke(ctx, i, h); deny != nil {
			return deny, nil
		}
	}
	return &r.sum.Result, nil
}

// callRecord is what the plugin keeps of a write between the chain's two
// runs: the IfNeeded webhooks called since the last change, those a later
// change has them call again, and the object the first run left.
type callRecord struct {
	previously, again map[string]bool
	lastOutput        []byte
}

// requireAgain has the webhooks called since the last change called again.
func (r *callRecord) requireAgain() {
	for k := range r.previously {
		r.again[k] = true
	}
	clear(r.previously)
}

// mutation is one run's pass through the mutating webhooks.
type mutation struct {
	d   *dispatcher
	cur *admission.Attributes // the object as patched so far
	sum *summary
	rc  *admission.Reinvocation
	rec *callRecord
}

// invoke asks h (the index-th webhook) and applies its patch; a non-nil
// Result is the request's denial. In the second run only the webhooks the
// record says are called.
func (r *mutation) invoke(ctx context.Context, index int, h *hook) *admission.Result {
	inv, deny := r.d.shouldCall(ctx, h, r.cur)
	if deny != nil {
		return r.sum.deny(deny.Status)
	}
	if inv == nil {
		return nil
	}
	round := 0
	if r.rc.IsReinvoke() {
		if !r.rec.again[h.key()] {
			return nil
		}
		round = 1
	}
	res, err := call(ctx, h, inv.attrs, true)
	if err != nil {
		r.called(h)
		if deny := failed(h, err); deny != nil {
			return r.sum.deny(deny.Status)
		}
		r.sum.failedOpen("mutation", round, index, h, err, r.d.log)
		return nil
	}
	r.sum.add(res)
	if !res.Allowed {
		return r.sum.deny(res.Status)
	}
	changed, err := r.apply(ctx, h, inv, res.Patch)
	if err != nil {
		return r.sum.deny(&apierrors.NewInternalError(err).ErrStatus)
	}
	r.sum.annotate(fmt.Sprintf("mutation.webhook.admission.k8s.io/round_%d_index_%d", round, index), mutationAnnotation(h, changed))
	if changed {
		r.rec.requireAgain()
		r.rc.SetShouldReinvoke()
	}
	r.called(h)
	return nil
}

// called notes that h was called, to be called again after a later change
// if its reinvocationPolicy is IfNeeded.
func (r *mutation) called(h *hook) {
	if h.reinvoke {
		r.rec.previously[h.key()] = true
	}
}

// apply applies h's patch of inv's object to the current object and adds
// it to the answer's; it reports whether the object changed. A patch of
// an object converted to an equivalent resource is turned into one of
// the current object (see patchBack).
func (r *mutation) apply(ctx context.Context, h *hook, inv *invocation, patch []byte) (bool, error) {
	if len(patch) == 0 {
		return false, nil
	}
	if len(inv.attrs.Object.Raw) == 0 {
		return false, fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name)
	}
	next, err := admission.ApplyPatch(inv.attrs.Object.Raw, patch)
	if err != nil {
		return false, fmt.Errorf("admission webhook %q: %w", h.name, err)
	}
	if inv.convert != nil {
		if patch, err = patchBack(ctx, r.cur, inv, next); err != nil || patch == nil {
			return false, err
		}
		if next, err = admission.ApplyPatch(r.cur.Object.Raw, patch); err != nil {
			return false, err
		}
	}
	all, err := admission.AppendPatch(r.sum.Patch, patch)
	if err != nil {
		return false, err
	}
	changed := !sameJSON(r.cur.Object.Raw, next)
	r.cur.Object.Raw, r.sum.Patch = next, all
	return changed, nil
}

// sameJSON compares two documents by value, not by formatting.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// mutationAnnotation is kube's audit annotation value saying whether a
// webhook changed the object.
func mutationAnnotation(h *hook, mutated bool) string {
	v, _ := json.Marshal(struct {
		Configuration string `json:"configuration"`
		Webhook       string `json:"webhook"`
		Mutated       bool   `json:"mutated"`
	}{h.configuration, h.name, mutated})
	return string(v)
}
