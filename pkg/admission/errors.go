package admission

import "errors"

// Sentinel errors, matched with errors.Is. Every error an Admitter returns
// means "no answer": the caller fails closed.
var (
	// ErrInvalidConfig is returned by constructors given a config they
	// cannot work with.
	ErrInvalidConfig = errors.New("admission: invalid config")
	// ErrNoAdmitter is what the handler answers with when it was given no
	// Admitter, so that a wiring mistake fails closed.
	ErrNoAdmitter = errors.New("admission: no admitter configured")
	// ErrUnavailable means the remote admitter could not be asked: the
	// connection failed, the call timed out, or it answered with a non-2xx
	// status.
	ErrUnavailable = errors.New("admission: admission webhook unavailable")
	// ErrMalformedReview means the remote admitter answered with something
	// that is not a usable AdmissionReview: not JSON, another kind, no
	// response, a response for another request uid, or a patch of a type
	// other than JSONPatch.
	ErrMalformedReview = errors.New("admission: malformed AdmissionReview answer")
	// ErrInvalidResult means an admitter broke the Admitter contract: no
	// result and no error, or a patch that is not an RFC 6902 JSON patch.
	ErrInvalidResult = errors.New("admission: invalid admission result")
	// ErrValidatingPatch means a validating admitter returned a patch; only
	// one asked in the mutating phase (see Mutating and Ask) may change the
	// object.
	ErrValidatingPatch = errors.New("admission: validating admitter returned a patch")
	// ErrPatchFailed means a mutating admitter's patch does not apply to the
	// object (a failed test op, a missing path, or no object to patch, as
	// on DELETE).
	ErrPatchFailed = errors.New("admission: patch does not apply")
)
