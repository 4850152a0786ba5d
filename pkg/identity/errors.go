package identity

import "errors"

// Verification errors. Verify wraps one of them (with the detail of what was
// wrong), so callers match with errors.Is.
var (
	// ErrMissing means the request carries no assertion.
	ErrMissing = errors.New("identity assertion missing")
	// ErrInvalid means the assertion is malformed, has a bad signature, uses
	// an algorithm or key the verifier does not accept, or lacks a claim.
	ErrInvalid = errors.New("identity assertion invalid")
	// ErrExpired means the assertion's exp has passed, or it claims a longer
	// lifetime than the verifier allows.
	ErrExpired = errors.New("identity assertion expired")
	// ErrNotYetValid means the assertion's nbf or iat lies in the future.
	ErrNotYetValid = errors.New("identity assertion not yet valid")
	// ErrWrongAudience means the assertion was issued for another backend.
	ErrWrongAudience = errors.New("identity assertion for another audience")
	// ErrWrongIssuer means the assertion was issued by someone else.
	ErrWrongIssuer = errors.New("identity assertion from another issuer")
	// ErrWrongRequest means the assertion was issued for another method,
	// path or query: a captured assertion replayed to a different URL.
	ErrWrongRequest = errors.New("identity assertion for another request")
)
