package authz

import "errors"

// Sentinel errors, matched with errors.Is. Every error an Authorizer returns
// means "no usable answer": the middleware fails closed on it.
var (
	// ErrInvalidConfig is returned by constructors given a config they
	// cannot work with.
	ErrInvalidConfig = errors.New("authz: invalid config")
	// ErrUnavailable means the remote authorizer could not be asked: the
	// connection failed, the call timed out, or it answered with a non-2xx
	// status.
	ErrUnavailable = errors.New("authz: authorizer unavailable")
	// ErrMalformedReview means the remote authorizer answered with something
	// that is not a usable SubjectAccessReview.
	ErrMalformedReview = errors.New("authz: malformed SubjectAccessReview answer")
	// ErrEvaluation means the authorizer answered but reported that it could
	// not evaluate the whole policy (SubjectAccessReview status.evaluationError).
	ErrEvaluation = errors.New("authz: evaluation error")
)
