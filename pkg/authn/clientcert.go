package authn

import (
	"crypto/tls"
	"net/http"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// WithClientCertificates authenticates as kube's union does: a verified
// client certificate first, then whatever byToken does (the bearer token,
// or anonymous, or 401). A certificate user's Authorization header is
// dropped too, as kube drops it after any success, so a token goes no
// further than this hop. onResult, when set, is told of each certificate
// success (byToken reports its own outcomes).
func WithClientCertificates(byToken func(http.Handler) http.Handler, onResult func(*http.Request, string)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		tokenNext := byToken(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, ok := CertificateUser(r.TLS)
			if !ok {
				tokenNext.ServeHTTP(w, r)
				return
			}
			r.Header.Del("Authorization")
			if onResult != nil {
				onResult(r, "success")
			}
			next.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), *u)))
		})
	}
}

// CertificateUser is who a verified client certificate names, as kube's
// x509 authenticator reads it: the common name is the user, the
// organizations are groups, and system:authenticated is added. A
// certificate without a common name authenticates nobody, so the token
// is tried next. Only verified chains count: PeerCertificates alone may
// be anything the client sent.
func CertificateUser(cs *tls.ConnectionState) (*authenticationv1.UserInfo, bool) {
	if cs == nil || len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return nil, false
	}
	subject := cs.VerifiedChains[0][0].Subject
	if subject.CommonName == "" {
		return nil, false
	}
	groups := slices.Clone(subject.Organization)
	if !slices.Contains(groups, AllAuthenticated) {
		groups = append(groups, AllAuthenticated)
	}
	return &authenticationv1.UserInfo{Username: subject.CommonName, Groups: groups}, true
}
