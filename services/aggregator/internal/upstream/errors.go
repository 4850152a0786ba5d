package upstream

import "errors"

// ErrInvalidConfig is returned by New for a Config it cannot work with.
var ErrInvalidConfig = errors.New("upstream: invalid config")

// ErrNoEndpoint is returned by Pick when no endpoint is healthy. The
// request has then reached no backend, so the caller answers 503 with
// Retry-After: the client may safely send it again.
var ErrNoEndpoint = errors.New("upstream: no healthy endpoint")

// errNotChecked is the state of an endpoint whose first health check has
// not finished: it receives no requests until one succeeds.
var errNotChecked = errors.New("not checked yet")
