package serviceaccount

import (
	"errors"

	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// Sentinel errors, matched with errors.Is. Invalid configuration is reported
// with authn.ErrInvalidConfig, shared by every authenticator.
var (
	// ErrUnsupportedKey means a key is neither RSA (2048 bits or more) nor
	// ECDSA on P-256, P-384 or P-521, the keys kube signs tokens with. It
	// is oidc.ErrUnsupportedKey, so either name matches.
	ErrUnsupportedKey = oidc.ErrUnsupportedKey
	// ErrInvalidTokenRequest means a TokenRequest's spec is not acceptable
	// (too short or too long a lifetime, an empty or repeated audience); the
	// handler answers 422 Invalid with the offending fields.
	ErrInvalidTokenRequest = errors.New("serviceaccount: invalid token request")
	// ErrBindingUnsupported means the TokenRequest asked for a token bound to
	// an object (boundObjectRef), which kubesplit does not issue yet.
	ErrBindingUnsupported = errors.New("serviceaccount: bound tokens are not supported")
	// ErrInvalidServiceAccount means a ServiceAccountRef lacks its namespace,
	// name or uid, without which the token could not be checked later.
	ErrInvalidServiceAccount = errors.New("serviceaccount: incomplete service account reference")
	// ErrNotSynced means the informer Lookup has not finished its first list,
	// so it cannot tell a missing account from one it has not seen yet.
	ErrNotSynced = errors.New("serviceaccount: service account cache not synced")
)
