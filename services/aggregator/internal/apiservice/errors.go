package apiservice

import "errors"

// ErrInvalidConfig is returned for a Config the controller cannot work
// with.
var ErrInvalidConfig = errors.New("apiservice: invalid config")

// errInvalidBackend is why an APIService's backend cannot be built: a bad
// URL annotation or CA bundle. It is reported in its Available condition.
var errInvalidBackend = errors.New("invalid backend")
