package handler

import (
	"math"
	"math/rand/v2"
	"time"
)

// minWatchTimeout is kube's --min-request-timeout default: a watch that
// names no timeout lasts between it and twice it, at random, so that
// watchers spread their reconnects.
const minWatchTimeout = 30 * time.Minute

// maxTimeoutSeconds is the longest timeoutSeconds a time.Duration holds.
const maxTimeoutSeconds = int64(math.MaxInt64 / time.Second)

// watchTimeout is how long a watch lasts for ?timeoutSeconds (nil when
// absent; listQuery refuses negative values). Zero means the server's
// default, as in kube; a value too large for a Duration, which kube lets
// overflow into a watch that ends at once or at some arbitrary time, is
// the longest Duration instead.
func watchTimeout(seconds *int64) time.Duration {
	switch {
	case seconds == nil || *seconds == 0:
		return minWatchTimeout + time.Duration(rand.Int64N(int64(minWatchTimeout)))
	case *seconds > maxTimeoutSeconds:
		return math.MaxInt64
	}
	return time.Duration(*seconds) * time.Second
}
