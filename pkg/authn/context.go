package authn

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// contextKey is unexported so that no other package can read or overwrite
// the values stored here except through the functions below.
type contextKey int

const (
	userKey contextKey = iota
	audiencesKey
)

// WithUser returns a copy of ctx that carries the authenticated user.
func WithUser(ctx context.Context, u *authenticationv1.UserInfo) context.Context {
	return context.WithValue(ctx, userKey, u)
}

// UserFrom returns the user WithUser stored in ctx, if any.
func UserFrom(ctx context.Context) (*authenticationv1.UserInfo, bool) {
	u, ok := ctx.Value(userKey).(*authenticationv1.UserInfo)
	return u, ok && u != nil
}

// WithAudiences returns a copy of ctx that asks audience-aware
// authenticators to accept only tokens meant for one of auds.
func WithAudiences(ctx context.Context, auds []string) context.Context {
	return context.WithValue(ctx, audiencesKey, auds)
}

// AudiencesFrom returns the audiences WithAudiences stored in ctx, if any.
func AudiencesFrom(ctx context.Context) ([]string, bool) {
	auds, ok := ctx.Value(audiencesKey).([]string)
	return auds, ok && len(auds) > 0
}
