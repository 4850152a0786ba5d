package discovery

import "errors"

// ErrInvalidConfig is returned by New for a Config it cannot work with.
var ErrInvalidConfig = errors.New("discovery: invalid config")

// ErrInvalidRule is returned for a routing rule that cannot match
// anything or names no upstream.
var ErrInvalidRule = errors.New("discovery: invalid rule")

// ErrDuplicateRule is returned when a rule matches exactly what a rule
// already in the table matches.
var ErrDuplicateRule = errors.New("discovery: duplicate rule")
