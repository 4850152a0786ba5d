package authz

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// chain is a union of authorizers, as kube-apiserver's
// --authorization-mode=A,B,… builds it.
type chain []Authorizer

// Chain asks each authorizer in turn: the first Allow or Deny decides, a
// NoOpinion passes the request to the next one. An error from an authorizer
// that did not decide is remembered and, if nobody decides, returned with
// NoOpinion, so an outage of one engine fails closed instead of looking like
// an ordinary "no".
//
// The answer carries the lowest non-zero revision among the authorizers
// asked: a decision that fell through several of them is only as fresh as
// the stalest one it depended on.
func Chain(authorizers ...Authorizer) (Authorizer, error) {
	for i, a := range authorizers {
		if a == nil {
			return nil, fmt.Errorf("%w: chain: authorizer %d is nil", ErrInvalidConfig, i)
		}
	}
	return chain(append([]Authorizer(nil), authorizers...)), nil
}

// Authorize implements Authorizer.
func (c chain) Authorize(ctx context.Context, a Attributes) (Result, error) {
	var (
		errs     []error
		reasons  []string
		revision int64
	)
	for _, authorizer := range c {
		res, err := authorizer.Authorize(ctx, a)
		revision = olderRevision(revision, res.Revision)
		if res.Decision == DecisionAllow || res.Decision == DecisionDeny {
			res.Revision = revision
			return res, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		if res.Reason != "" {
			reasons = append(reasons, res.Reason)
		}
	}
	// Newline-joined, as kube's union joins the reasons of those that
	// passed.
	res := Result{Decision: DecisionNoOpinion, Reason: strings.Join(reasons, "\n"), Revision: revision}
	return res, errors.Join(errs...)
}

// olderRevision returns the lower of two revisions, where 0 (unversioned)
// loses to any real revision.
func olderRevision(a, b int64) int64 {
	switch {
	case a == 0:
		return b
	case b == 0 || a < b:
		return a
	}
	return b
}
