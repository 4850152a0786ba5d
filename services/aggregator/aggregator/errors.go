package aggregator

import "errors"

// ErrInvalidConfig is wrapped by every error Start returns for a Config it
// cannot run.
var ErrInvalidConfig = errors.New("aggregator: invalid config")
