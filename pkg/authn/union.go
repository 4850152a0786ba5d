package authn

import (
	"context"
	"errors"
	"slices"
)

// Union returns an Authenticator that asks each of authenticators in order.
// The first that recognises the token wins. An error from one does not stop
// the others, because another may still recognise the token; but when none
// does and any failed, the union reports the errors, since the failed one
// might have recognised it and "not recognised" would then be a lie.
func Union(authenticators ...Authenticator) Authenticator {
	// Copied so that the caller reusing its slice cannot change the union.
	list := slices.Clone(authenticators)
	return AuthenticatorFunc(func(ctx context.Context, token string) (*Response, bool, error) {
		var errs []error
		for _, a := range list {
			resp, ok, err := a.AuthenticateToken(ctx, token)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				return resp, true, nil
			}
		}
		return nil, false, errors.Join(errs...)
	})
}
