package webhook

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is. Each means "no usable answer":
// callers fail closed on all of them.
var (
	// ErrInvalidConfig is returned by NewClient given a config it cannot
	// work with.
	ErrInvalidConfig = errors.New("webhook: invalid config")
	// ErrUnavailable means the webhook could not be asked: the connection
	// failed, the call timed out, it redirected, or it answered with a
	// non-2xx status. The underlying error, if any, is wrapped too.
	ErrUnavailable = errors.New("webhook: unavailable")
	// ErrMalformedAnswer means the webhook answered 2xx with a body that is
	// too large or not the JSON expected.
	ErrMalformedAnswer = errors.New("webhook: malformed answer")
)

// Relabel wraps an error from Client.Post in a stage's own sentinels, so
// that its callers keep matching the stage's errors (and the cause) with
// errors.Is while the plumbing lives here. Other errors are returned as
// they are.
func Relabel(err, unavailable, malformed error) error {
	switch {
	case errors.Is(err, ErrUnavailable):
		return fmt.Errorf("%w: %w", unavailable, err)
	case errors.Is(err, ErrMalformedAnswer):
		return fmt.Errorf("%w: %w", malformed, err)
	}
	return err
}
