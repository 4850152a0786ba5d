package authz

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// DefaultRetryAfter is how long a client is told to wait when authorization
// is unavailable and MiddlewareConfig.RetryAfter is zero.
const DefaultRetryAfter = time.Second

// MiddlewareConfig configures WithAuthorization.
type MiddlewareConfig struct {
	// RetryAfter is sent as Retry-After with the 503 written when the
	// authorizer fails; it is rounded up to whole seconds. Zero means
	// DefaultRetryAfter.
	RetryAfter time.Duration

	// OnDecision, when set, is told each request's decision and reason
	// (the audit log records them); not called when the authorizer failed.
	OnDecision func(r *http.Request, d Decision, reason string)
}

// WithAuthorization returns a middleware that asks a whether each request
// may proceed. It reads the user authentication put in the request's context
// (request.UserFrom) and the request info from there too (request.InfoOf)
// or, when no earlier middleware put it there, from the request itself.
//
//   - Allow: the request goes on, even when a also returned an error (as in
//     kube, an engine may find an allowing rule despite failing elsewhere).
//   - Any other decision with an error: 503 ServiceUnavailable with
//     Retry-After. The request never reached storage, so the client may
//     retry it, and an unreachable authorizer is never read as a "no".
//   - Deny or NoOpinion: 403 Forbidden with kube's message (see Forbidden).
//   - No user on the request: 500, since authentication must run first.
func WithAuthorization(a Authorizer, cfg MiddlewareConfig) (func(http.Handler) http.Handler, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: authorization middleware: nil Authorizer", ErrInvalidConfig)
	}
	if cfg.RetryAfter < 0 {
		return nil, fmt.Errorf("%w: authorization middleware: negative RetryAfter", ErrInvalidConfig)
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, ok := request.UserFrom(r.Context())
			if !ok {
				apierror.Write(w, apierrors.NewInternalError(errors.New("no user found for request")))
				return
			}
			attrs := FromRequestInfo(user, request.InfoOf(r))
			res, err := a.Authorize(r.Context(), attrs)
			if cfg.OnDecision != nil && (err == nil || res.Decision == DecisionAllow) {
				cfg.OnDecision(r, res.Decision, res.Reason)
			}
			switch {
			case res.Decision == DecisionAllow:
				next.ServeHTTP(w, r)
			case err != nil:
				apierror.Write(w, unavailable(cfg.RetryAfter))
			default:
				apierror.Write(w, Forbidden(attrs, res.Reason))
			}
		})
	}, nil
}

// unavailable is the 503 for a failed authorizer. Its message does not
// include the cause: that would show internal addresses to the caller.
func unavailable(retryAfter time.Duration) *apierrors.StatusError {
	return apierror.Unavailable("authorization is temporarily unavailable, please retry", retryAfter)
}
