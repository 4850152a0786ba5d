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
	// ErrWrongBody means the request's body is not the one the assertion
	// was issued for: a captured assertion replayed with a body of the
	// replayer's own. Reading the body fails with it, at its end.
	ErrWrongBody = errors.New("identity assertion for another body")
	// ErrReplayed means a write's assertion was presented a second time;
	// every write gets an assertion of its own.
	ErrReplayed = errors.New("identity assertion already used")
	// ErrBusy means the verifier remembers as many write assertions as it
	// may (see VerifierConfig.MaxWrites), none expired yet: the write is
	// refused rather than one forgotten, and may be tried again shortly.
	ErrBusy = errors.New("too many write assertions in their lifetime")
)
