package stagecaller

import (
	"net/http"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
)

// Middleware wraps a webhook route.
type Middleware = func(http.Handler) http.Handler

// Accept returns the middleware of a stage's webhook routes. A request
// carrying an identity assertion goes through internal, as before; one
// over TLS carrying a client certificate or a bearer token instead goes
// through outside; every other request goes through internal too, which
// refuses it with 401. A nil outside leaves internal alone.
func Accept(internal, outside Middleware) Middleware {
	if outside == nil {
		return internal
	}
	return func(next http.Handler) http.Handler {
		in, out := internal(next), outside(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isOutside(r) {
				out.ServeHTTP(w, r)
				return
			}
			in.ServeHTTP(w, r)
		})
	}
}

// isOutside tells an outside caller's request: no assertion, over TLS,
// with credentials of its own. Over plain HTTP a token could have been
// read on the way, so it is never taken.
func isOutside(r *http.Request) bool {
	if r.TLS == nil || len(r.Header.Values(identity.Header)) > 0 {
		return false
	}
	_, byCert := authn.CertificateUser(r.TLS)
	return byCert || r.Header.Get("Authorization") != ""
}

// Outside is the check of outside callers, asking the API rc reaches (the
// aggregator, with the stage's own credentials) about their tokens and
// access; nil rc means no API to ask, and no outside callers (nil).
func Outside(rc *rest.Config) (Middleware, error) {
	if rc == nil {
		return nil, nil
	}
	d, err := observe.DelegateTo(rc)
	if err != nil {
		return nil, err
	}
	return outsideOf(d)
}

// outsideOf authenticates the caller (certificate, then token), authorizes
// the request it makes, and hands next a request that carries the caller
// where the internal path's identity.Require puts it (request.UserFrom).
func outsideOf(d observe.Delegate) (Middleware, error) {
	tokens, access, err := d.Reviewers()
	if err != nil {
		return nil, err
	}
	authorize, err := observe.Authorize(access)
	if err != nil {
		return nil, err
	}
	authenticate := authn.WithClientCertificates(authn.WithAuthentication(tokens, authn.Options{}), nil)
	return func(next http.Handler) http.Handler {
		return authenticate(authorize(withoutIdentityHeaders(next)))
	}, nil
}

// withoutIdentityHeaders strips identity headers, as identity.Require
// does, so that nothing behind either path can trust one by mistake.
func withoutIdentityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		identity.StripIdentityHeaders(r.Header)
		next.ServeHTTP(w, r)
	})
}
