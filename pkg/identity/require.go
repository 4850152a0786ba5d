package identity

import (
	"errors"
	"fmt"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// Require is the backends' middleware for API routes: it verifies the
// request's assertion with v, puts the asserted user in the request
// context (see request.UserFrom), and strips every identity header before
// calling next, so nothing downstream can trust one by mistake. A request without a
// valid assertion gets 401 Unauthorized as a metav1.Status, whatever
// X-Remote-* headers it carries; so does a write's assertion presented a
// second time. A body that is not the asserted one fails next's read of it
// (ErrWrongBody), which next answers with an error instead of acting on
// it. When v remembers as many writes as it may, a write gets 429 with
// Retry-After: nothing was done, and clients try again. v must not be nil.
func Require(v *Verifier) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hasBody(r) {
				// A copy, for Verify to replace the body of: a handler
				// must not modify the request it was given. Reads have
				// no body and are not copied.
				r = r.WithContext(r.Context())
			}
			u, err := verifyRequest(v, r)
			if errors.Is(err, ErrBusy) {
				apierror.Write(w, apierrors.NewTooManyRequests(err.Error(), 1))
				return
			}
			if err != nil {
				apierror.Write(w, apierrors.NewUnauthorized(err.Error()))
				return
			}
			r = r.WithContext(request.WithUser(r.Context(), u))
			StripIdentityHeaders(r.Header)
			next.ServeHTTP(w, r)
		})
	}
}

// verifyRequest checks the one assertion r carries. Several values mean
// someone other than the aggregator added one, so they are refused rather
// than picking one.
func verifyRequest(v *Verifier, r *http.Request) (authenticationv1.UserInfo, error) {
	values := r.Header.Values(Header)
	switch len(values) {
	case 0:
		return authenticationv1.UserInfo{}, ErrMissing
	case 1:
		return v.Verify(values[0], r)
	default:
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: %d %s headers", ErrInvalid, len(values), Header)
	}
}
