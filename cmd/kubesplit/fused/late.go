package fused

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
)

// errNotStarted is what a stage answers before it exists: an error, so the
// caller fails closed (503) rather than deciding without it.
var errNotStarted = errors.New("fused: stage not started yet")

// late is a stage that exists only after the services that call it have
// started: authn, authz and admission reach the API through the aggregator,
// which needs the first two at its start, and the registry needs
// admission at its start. Until set, every call is errNotStarted.
type late[T any] struct{ p atomic.Pointer[T] }

func (l *late[T]) set(v T) { l.p.Store(&v) }

func (l *late[T]) get() (T, error) {
	if p := l.p.Load(); p != nil {
		return *p, nil
	}
	var zero T
	return zero, errNotStarted
}

// lateAuthenticator is an authn.Authenticator set late.
type lateAuthenticator struct{ late[authn.Authenticator] }

func (l *lateAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authn.Response, bool, error) {
	a, err := l.get()
	if err != nil {
		return nil, false, err
	}
	return a.AuthenticateToken(ctx, token)
}

// lateAuthorizer is an authz.Authorizer set late.
type lateAuthorizer struct{ late[authz.Authorizer] }

func (l *lateAuthorizer) Authorize(ctx context.Context, a authz.Attributes) (authz.Result, error) {
	az, err := l.get()
	if err != nil {
		return authz.Result{Decision: authz.DecisionNoOpinion}, err
	}
	return az.Authorize(ctx, a)
}

// lateAdmitter is an admission.Admitter set late.
type lateAdmitter struct{ late[admission.Admitter] }

func (l *lateAdmitter) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	ad, err := l.get()
	if err != nil {
		return nil, err
	}
	return ad.Admit(ctx, a)
}

// lateRules are the writes admission's plugins look at, known once it has
// started, so that the registry asks about those only, as the split stack's
// registry does with the rules the admission service publishes. Until then
// every write is asked about (and refused, admission not being there).
type lateRules struct{ late[func() admission.Rules] }

func (l *lateRules) Rules(context.Context) (admission.Rules, bool) {
	rules, err := l.get()
	if err != nil {
		return admission.Rules{}, false
	}
	return rules(), true
}
