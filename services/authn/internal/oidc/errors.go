package oidc

import "errors"

// Sentinel errors, matched with errors.Is. Invalid configuration is reported
// with authn.ErrInvalidConfig, shared by every authenticator.
var (
	// ErrUnsupportedKey means a key is neither RSA (2048 bits or more) nor
	// ECDSA on P-256, P-384 or P-521, the keys kube signs tokens with.
	ErrUnsupportedKey = errors.New("oidc: unsupported key")
	// ErrInvalidJWKS means a JSON Web Key Set could not be parsed.
	ErrInvalidJWKS = errors.New("oidc: invalid JSON web key set")
	// ErrProviderUnavailable means the provider's discovery document or key
	// set could not be fetched, or was not usable. Tokens cannot be checked
	// then, so the authenticator fails closed with it.
	ErrProviderUnavailable = errors.New("oidc: provider unavailable")
)
