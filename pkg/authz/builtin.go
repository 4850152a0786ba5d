package authz

import (
	"context"
	"slices"
)

// SystemMastersGroup is the group whose members may do anything. The
// aggregator lets it through without asking authz, so authz and admission
// can sync their state through the aggregator before they are ready.
const SystemMastersGroup = "system:masters"

// AlwaysAllow returns an Authorizer that allows every request, as kube's
// --authorization-mode=AlwaysAllow.
func AlwaysAllow() Authorizer {
	return AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		return Result{Decision: DecisionAllow}, nil
	})
}

// AlwaysDeny returns an Authorizer that denies every request, as kube's
// --authorization-mode=AlwaysDeny.
func AlwaysDeny() Authorizer {
	return AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		return Result{Decision: DecisionDeny, Reason: "Everything is forbidden."}, nil
	})
}

// SystemMasters returns an Authorizer that allows members of
// SystemMastersGroup and has no opinion on anyone else; put it first in a
// Chain.
func SystemMasters() Authorizer {
	return AuthorizerFunc(func(_ context.Context, a Attributes) (Result, error) {
		if slices.Contains(a.User.Groups, SystemMastersGroup) {
			return Result{Decision: DecisionAllow}, nil
		}
		return Result{Decision: DecisionNoOpinion}, nil
	})
}
