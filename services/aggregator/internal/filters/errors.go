package filters

import "errors"

// ErrInvalidConfig is returned by constructors given a config they cannot
// work with.
var ErrInvalidConfig = errors.New("filters: invalid config")
