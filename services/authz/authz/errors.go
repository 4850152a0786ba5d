package authz

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidConfig is returned by Start for a Config it cannot run:
	// a missing field, an unknown or repeated authorization mode.
	ErrInvalidConfig = errors.New("authz: invalid configuration")
	// ErrNotSynced is what the rbac-synced readiness check reports until
	// the RBAC informers have synced and the first policy is loaded.
	ErrNotSynced = errors.New("authz: RBAC policy not synced yet")
)
