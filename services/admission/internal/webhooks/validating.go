package webhooks

import (
	"context"
	"sync"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Validating is the ValidatingAdmissionWebhook plugin's admitter. Its
// CurrentRules are the validating webhooks' rules.
type Validating struct {
	d *dispatcher
}

var (
	_ admission.Admitter  = (*Validating)(nil)
	_ plugin.DynamicRules = (*Validating)(nil)
)

// CurrentRules implements plugin.DynamicRules.
func (v *Validating) CurrentRules() admission.Rules { return v.d.rulesFor(admission.PhaseValidating) }

// answer is one validating webhook's answer, or why there is none.
type answer struct {
	res *admission.Result
	err error
}

// Admit calls the validating webhooks a matches, all at once, and waits
// for every one. The denial (or failure, under failurePolicy Fail) of the
// first webhook in order is the answer; every webhook's warnings and audit
// annotations are kept.
func (v *Validating) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	hooks, err := v.d.prepare(ctx, a)
	if err != nil {
		return nil, err
	}
	if len(hooks) == 0 {
		return admission.Allow(), nil
	}
	sum := newSummary()
	var relevant []int
	invocations := make([]*invocation, len(hooks))
	for i, h := range hooks {
		inv, deny := v.d.shouldCall(ctx, h, a)
		if deny != nil {
			return sum.deny(deny.Status), nil
		}
		if inv != nil {
			relevant, invocations[i] = append(relevant, i), inv
		}
	}
	answers := make([]answer, len(relevant))
	var wg sync.WaitGroup
	for j, i := range relevant {
		wg.Go(func() {
			res, err := call(ctx, hooks[i], invocations[i].attrs, false)
			answers[j] = answer{res: res, err: err}
		})
	}
	wg.Wait()
	var denial *admission.Result
	for j, i := range relevant {
		h, ans := hooks[i], answers[j]
		if ans.err != nil {
			deny := failed(h, ans.err)
			if deny == nil {
				sum.failedOpen("validating", 0, i, h, ans.err, v.d.log)
			} else if denial == nil {
				denial = deny
			}
			continue
		}
		sum.add(ans.res)
		if !ans.res.Allowed && denial == nil {
			denial = ans.res
		}
	}
	if denial != nil {
		return sum.deny(denial.Status), nil
	}
	return &sum.Result, nil
}
