package authn

import "context"

// audiencesKey is unexported so that no other package can read or
// overwrite the audiences stored here except through the functions below.
// The user an authenticator finds goes in pkg/request instead: every
// later stage reads it; audiences are for authenticators alone.
type audiencesKey struct{}

// WithAudiences returns a copy of ctx that asks audience-aware
// authenticators to accept only tokens meant for one of auds.
func WithAudiences(ctx context.Context, auds []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, auds)
}

// AudiencesFrom returns the audiences WithAudiences stored in ctx, if any.
func AudiencesFrom(ctx context.Context) ([]string, bool) {
	auds, ok := ctx.Value(audiencesKey{}).([]string)
	return auds, ok && len(auds) > 0
}
