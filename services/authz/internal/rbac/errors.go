package rbac

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrNotLoaded is returned by Authorize before the first Load: the
	// engine has no policy to evaluate, which must fail closed (as an
	// unavailable authorizer) rather than read as "no rule allows it". It
	// comes wrapped together with authz.ErrEvaluation.
	ErrNotLoaded = errors.New("rbac: no policy loaded yet")
	// ErrStaleRevision is returned by Load given a revision older than the
	// one already loaded; the loaded policy stays.
	ErrStaleRevision = errors.New("rbac: revision older than the loaded policy")
	// ErrInvalidRevision is returned by Load given a negative revision.
	ErrInvalidRevision = errors.New("rbac: negative revision")
)
