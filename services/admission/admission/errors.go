package admission

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidConfig is returned by Start and NewLocal for a
	// configuration they cannot run: a missing field, an unknown plugin
	// name, insecure serving off loopback.
	ErrInvalidConfig = errors.New("admission: invalid configuration")
	// ErrNotSynced is what the informers-synced readiness check reports
	// until every plugin's informers have their first list.
	ErrNotSynced = errors.New("admission: informers not synced yet")
)
