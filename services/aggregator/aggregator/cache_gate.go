package aggregator

import (
	"context"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
)

// gatedAuthenticator answers from cached while trusted says the cache is
// kept up to date (its revision streams are live), and asks direct
// otherwise: when the aggregator may have missed a deletion, it fails
// towards asking, never towards accepting an old answer.
type gatedAuthenticator struct {
	cached  authn.Authenticator
	direct  authn.Authenticator
	trusted func() bool
}

var _ authn.Authenticator = (*gatedAuthenticator)(nil)

// AuthenticateToken implements authn.Authenticator.
func (g *gatedAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authn.Response, bool, error) {
	if g.trusted() {
		return g.cached.AuthenticateToken(ctx, token)
	}
	return g.direct.AuthenticateToken(ctx, token)
}

// gatedAuthorizer is gatedAuthenticator for decisions. An answer asked
// directly still tells the cache the newest policy revision it carries.
type gatedAuthorizer struct {
	cached  *authz.Cached
	direct  authz.Authorizer
	trusted func() bool
}

var _ authz.Authorizer = (*gatedAuthorizer)(nil)

// Authorize implements authz.Authorizer.
func (g *gatedAuthorizer) Authorize(ctx context.Context, a authz.Attributes) (authz.Result, error) {
	if g.trusted() {
		return g.cached.Authorize(ctx, a)
	}
	res, err := g.direct.Authorize(ctx, a)
	if err == nil {
		g.cached.Advance(res.Revision)
	}
	return res, err
}
