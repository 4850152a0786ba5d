package authn

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Response is what an Authenticator learnt from a token it recognised.
type Response struct {
	// User is who the token belongs to, in the form TokenReview carries it.
	User authenticationv1.UserInfo
	// Audiences are the audiences the token is valid for, among those the
	// caller asked for (see WithAudiences). Empty means the authenticator is
	// audience-agnostic: the token is valid for the API server's own audience.
	Audiences []string
}

// Authenticator decides who a bearer token belongs to.
//
// It returns (response, true, nil) when it recognises the token,
// (nil, false, nil) when it does not (an unknown, invalid or expired token),
// and a non-nil error only when it could not decide (a backend is down or
// timed out), so that callers can fail closed without blaming the client.
type Authenticator interface {
	AuthenticateToken(ctx context.Context, token string) (*Response, bool, error)
}

// AuthenticatorFunc adapts a function to the Authenticator interface.
type AuthenticatorFunc func(ctx context.Context, token string) (*Response, bool, error)

// AuthenticateToken calls f.
func (f AuthenticatorFunc) AuthenticateToken(ctx context.Context, token string) (*Response, bool, error) {
	return f(ctx, token)
}

// orFailing replaces a nil Authenticator with one that always errors, so a
// wiring mistake fails closed instead of panicking on every request.
func orFailing(a Authenticator) Authenticator {
	if a != nil {
		return a
	}
	return AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		return nil, false, ErrNoAuthenticator
	})
}
