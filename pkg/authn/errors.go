package authn

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidConfig is returned by constructors given an unusable config.
	ErrInvalidConfig = errors.New("authn: invalid configuration")
	// ErrInvalidTokenFile is returned when a static token file cannot be used.
	ErrInvalidTokenFile = errors.New("authn: invalid token file")
	// ErrWebhookUnavailable means the TokenReview webhook could not be
	// reached, timed out, or answered with a non-2xx status.
	ErrWebhookUnavailable = errors.New("authn: token review webhook unavailable")
	// ErrMalformedReview means the webhook answered with something that is
	// not a usable TokenReview.
	ErrMalformedReview = errors.New("authn: malformed token review response")
	// ErrReviewFailed means the webhook reported in status.error that it
	// could not check the token.
	ErrReviewFailed = errors.New("authn: token review failed")
	// ErrNoAuthenticator is what the middleware reports when it was given
	// no Authenticator, so that a wiring mistake fails closed.
	ErrNoAuthenticator = errors.New("authn: no authenticator configured")
)
