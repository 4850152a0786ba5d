package quota

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// maxAttempts bounds how often a write is re-checked against quotas that
// another writer changed under it (kube tries 3 times; replicas and the
// controller are the only other writers here, the namespace lock keeps this
// process's own requests from colliding).
const maxAttempts = 5

// charge checks the write against every quota that covers it and, unless
// it is a dry run, records its usage in their status before allowing it:
// the status update carries the resourceVersion the check read, so two
// writers can never both spend the same headroom. A quota whose update
// conflicted is read again and checked again; the ones that took the
// charge keep it.
func (p *Plugin) charge(ctx context.Context, req *request, quotas []*corev1.ResourceQuota) (*admission.Result, error) {
	for attempt := 1; ; attempt++ {
		updates, denial, err := p.evaluate(req, quotas)
		if err != nil || denial != nil {
			return denial, err
		}
		if req.attrs.DryRun || len(updates) == 0 {
			return admission.Allow(), nil
		}
		conflicted, err := p.write(ctx, updates)
		switch {
		case err == nil:
			return admission.Allow(), nil
		case len(conflicted) == 0:
			return nil, err
		case attempt == maxAttempts:
			return statusResult(err), nil
		}
		if quotas, err = p.reread(ctx, conflicted); err != nil {
			return nil, err
		}
	}
}

// evaluate checks the write against each quota and returns the quotas with
// the write charged to them, or the denial.
func (p *Plugin) evaluate(req *request, quotas []*corev1.ResourceQuota) ([]*corev1.ResourceQuota, *admission.Result, error) {
	var updates []*corev1.ResourceQuota
	for _, q := range quotas {
		updated, err := p.evaluateOne(req, q)
		if err != nil {
			if apierrors.IsForbidden(err) {
				return nil, statusResult(err), nil
			}
			return nil, nil, err
		}
		if updated != nil {
			updates = append(updates, updated)
		}
	}
	return updates, nil, nil
}

// evaluateOne checks the write against one quota, as kube's checkRequest
// does: nil if the quota does not cover it or nothing changes, the quota
// with the new usage if it fits, a Forbidden error if not.
func (p *Plugin) evaluateOne(req *request, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
	limited := req.ev.MatchingResources(names(q.Spec.Hard))
	if len(limited) == 0 {
		return nil, nil
	}
	in, err := inScope(q, req.ev, req.obj)
	if err != nil || !in {
		return nil, err
	}
	if err := req.ev.Constraints(limited, req.obj); err != nil {
		return nil, p.forbidden(req, fmt.Errorf("failed quota: %s: %v", q.Name, err))
	}
	if !statusKnown(q, limited) {
		return nil, p.forbidden(req, fmt.Errorf("status unknown for quota: %s, resource: %s", q.Name, prettyPrintNames(limited)))
	}
	all, err := req.requested(q)
	if err != nil {
		return nil, err
	}
	requested := mask(all, limited)
	if len(requested) == 0 {
		return nil, nil
	}
	used := add(q.Status.Used, requested)
	if over := exceeded(mask(used, names(requested)), q.Status.Hard); len(over) > 0 {
		return nil, p.forbidden(req, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
			q.Name, prettyPrint(mask(requested, over)), prettyPrint(mask(q.Status.Used, over)), prettyPrint(mask(q.Status.Hard, over))))
	}
	if equal(used, q.Status.Used) {
		return nil, nil
	}
	updated := q.DeepCopy()
	updated.Status.Used = used
	return updated, nil
}

// statusKnown says whether the controller has filled in the quota's status
// for its current spec: until then its usage is unknown and kube refuses
// rather than guess.
func statusKnown(q *corev1.ResourceQuota, limited []corev1.ResourceName) bool {
	if !equal(q.Spec.Hard, q.Status.Hard) {
		return false
	}
	for _, name := range limited {
		if _, ok := q.Status.Used[name]; !ok {
			return false
		}
	}
	return true
}

// write records the charged quotas. It returns the quotas someone else
// changed since they were read with the last Conflict error, or no quotas
// and the error that stopped it. A quota deleted meanwhile no longer limits
// anything.
func (p *Plugin) write(ctx context.Context, updates []*corev1.ResourceQuota) ([]*corev1.ResourceQuota, error) {
	var conflicted []*corev1.ResourceQuota
	var lastConflict error
	for _, q := range updates {
		_, err := p.quotas.updateStatus(ctx, q)
		switch {
		case err == nil, apierrors.IsNotFound(err):
		case apierrors.IsConflict(err):
			conflicted, lastConflict = append(conflicted, q), err
		default:
			return nil, fmt.Errorf("resourcequota: updating quota %s: %w", q.Name, err)
		}
	}
	return conflicted, lastConflict
}

// reread reads the quotas whose update conflicted live; a deleted one drops
// out.
func (p *Plugin) reread(ctx context.Context, conflicted []*corev1.ResourceQuota) ([]*corev1.ResourceQuota, error) {
	var out []*corev1.ResourceQuota
	for _, q := range conflicted {
		fresh, err := p.quotas.get(ctx, q.Namespace, q.Name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("resourcequota: reading quota %s: %w", q.Name, err)
		default:
			out = append(out, fresh)
		}
	}
	return out, nil
}

// forbidden is kube's admission Forbidden error for the written object.
func (p *Plugin) forbidden(req *request, err error) error {
	name := req.attrs.Name
	if m, mErr := meta.Accessor(req.obj); name == "" && mErr == nil {
		name = m.GetName()
	}
	return apierrors.NewForbidden(req.gr, name, err)
}

// statusResult answers with an API error's Status.
func statusResult(err error) *admission.Result {
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		s = apierrors.NewInternalError(err)
	}
	st := s.Status()
	return &admission.Result{Status: &st}
}
