package authn

import (
	"errors"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// DefaultRetryAfter is how long a client is told to wait when the
// authenticator could not decide and Options.RetryAfter is zero.
const DefaultRetryAfter = time.Second

// Options configures WithAuthentication.
type Options struct {
	// Anonymous lets a request without any Authorization header through as
	// system:anonymous in group system:unauthenticated, as kube-apiserver's
	// --anonymous-auth does. It is off by default so that a forgotten
	// setting denies rather than admits. A request with bad credentials is
	// never anonymous: it gets 401.
	Anonymous bool
	// APIAudiences are the audiences of this API server (kube's
	// --api-audiences). When set, authenticators are asked for tokens meant
	// for one of them, and a token recognised only for other audiences gets
	// 401.
	APIAudiences []string
	// RetryAfter is the Retry-After sent with 503 when the authenticator
	// could not decide; zero means DefaultRetryAfter. It is rounded up to
	// whole seconds.
	RetryAfter time.Duration
	// OnError, if set, is told why the authenticator could not decide, for
	// logs and metrics; the client only sees a generic 503.
	OnError func(r *http.Request, err error)
	// OnResult, if set, is told each request's outcome as kube's
	// authentication_attempts counts it: "success", "failure" (401) or
	// "error" (503).
	OnResult func(r *http.Request, result string)
}

// WithAuthentication returns middleware that authenticates each request's
// bearer token with a, puts the user in the request context
// (request.UserFrom) and removes the Authorization header before calling
// the next handler, so that the token goes no further than this hop. It
// answers 401 with WWW-Authenticate: Bearer for missing (unless
// Options.Anonymous), malformed or unrecognised credentials, and fails
// closed with 503 ServiceUnavailable and Retry-After when a returns an
// error, because that means it could not decide, not that the token is bad.
func WithAuthentication(a Authenticator, opts Options) func(http.Handler) http.Handler {
	a = orFailing(a)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, err := authenticate(r, a, opts)
			if opts.OnResult != nil {
				opts.OnResult(r, attemptResult(err))
			}
			switch {
			case errors.Is(err, errUnauthorized):
				w.Header().Set("WWW-Authenticate", "Bearer")
				apierror.Write(w, apierrors.NewUnauthorized("Unauthorized"))
				return
			case err != nil:
				if opts.OnError != nil {
					opts.OnError(r, err)
				}
				apierror.Write(w, unavailable(opts.RetryAfter))
				return
			}
			r.Header.Del("Authorization")
			next.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), *user)))
		})
	}
}

// errUnauthorized marks the outcomes that are the client's fault (401), as
// opposed to errors of the authenticator (503).
var errUnauthorized = errors.New("unauthorized")

// errNoResponse is an authenticator bug: it recognised a token without
// saying whose it is.
var errNoResponse = errors.New("authn: authenticator recognised a token but returned no user")

// authenticate decides who r is.
func authenticate(r *http.Request, a Authenticator, opts Options) (*authenticationv1.UserInfo, error) {
	token, present, err := bearerToken(r.Header)
	if err != nil {
		return nil, errUnauthorized
	}
	if !present {
		if opts.Anonymous {
			return anonymousUser(), nil
		}
		return nil, errUnauthorized
	}
	ctx := r.Context()
	if len(opts.APIAudiences) > 0 {
		ctx = WithAudiences(ctx, opts.APIAudiences)
	}
	resp, ok, err := a.AuthenticateToken(ctx, token)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, errUnauthorized
	case resp == nil:
		return nil, errNoResponse
	}
	// As kube's filter does: an audience-agnostic answer (no audiences) is
	// valid for this server; an audience-aware one must name one of ours.
	if len(opts.APIAudiences) > 0 && len(resp.Audiences) > 0 &&
		len(intersect(opts.APIAudiences, resp.Audiences)) == 0 {
		return nil, errUnauthorized
	}
	u := withAuthenticatedGroup(resp.User)
	return &u, nil
}

// unavailable is the 503 for an authenticator that could not decide. Its
// message is generic: the cause may name internal hosts.
func unavailable(retryAfter time.Duration) error {
	return apierror.Unavailable("authentication is temporarily unavailable, please retry", retryAfter)
}

// attemptResult names an authentication's outcome as kube's metric does.
func attemptResult(err error) string {
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, errUnauthorized):
		return "failure"
	}
	return "error"
}
