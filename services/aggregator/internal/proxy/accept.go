package proxy

import "context"

type acceptKey struct{}

// WithAccept makes Get ask for accept instead of application/json (the
// aggregator asks upstreams for aggregated discovery so).
func WithAccept(ctx context.Context, accept string) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

// acceptFrom is the Accept header Get sends.
func acceptFrom(ctx context.Context) string {
	if a, ok := ctx.Value(acceptKey{}).(string); ok && a != "" {
		return a
	}
	return "application/json"
}
