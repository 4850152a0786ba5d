package aggregator

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// The client-certificate authenticator lives here rather than in pkg/authn
// because pkg/authn's Authenticator sees a token, and a certificate is a
// property of the connection, which only the request carries.

// serverTLSConfig is the serving certificate and, with a client CA file,
// the request for client certificates (kube's --client-ca-file): optional,
// so token and anonymous callers still connect, but verified when given,
// so a certificate from another CA fails the handshake instead of being
// quietly ignored. Go checks the certificate is for client auth.
func serverTLSConfig(cfg Config, cert tls.Certificate) (*tls.Config, error) {
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if cfg.ClientCAFile == "" {
		return c, nil
	}
	pool, err := serve.CertPool(cfg.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("%w: client CA: %w", ErrInvalidConfig, err)
	}
	c.ClientAuth, c.ClientCAs = tls.VerifyClientCertIfGiven, pool
	return c, nil
}

// withAuthentication authenticates as kube's union does: a verified client
// certificate first, then the bearer token (or anonymous, or 401). A
// certificate user's Authorization header is dropped too, as kube drops it
// after any success, so a token goes no further than this hop.
func withAuthentication(cfg Config, a authn.Authenticator, onResult func(*http.Request, string)) func(http.Handler) http.Handler {
	byToken := authn.WithAuthentication(a, authn.Options{Anonymous: cfg.AnonymousAuth, OnResult: onResult})
	if cfg.ClientCAFile == "" {
		return byToken
	}
	return func(next http.Handler) http.Handler {
		tokenNext := byToken(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, ok := certificateUser(r.TLS)
			if !ok {
				tokenNext.ServeHTTP(w, r)
				return
			}
			r.Header.Del("Authorization")
			onResult(r, "success")
			next.ServeHTTP(w, r.WithContext(authn.WithUser(r.Context(), u)))
		})
	}
}

// certificateUser is who a verified client certificate names, as kube's
// x509 authenticator reads it: the common name is the user, the
// organizations are groups, and system:authenticated is added. A
// certificate without a common name authenticates nobody, so the token
// is tried next. Only verified chains count: PeerCertificates alone may
// be anything the client sent.
func certificateUser(cs *tls.ConnectionState) (*authenticationv1.UserInfo, bool) {
	if cs == nil || len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return nil, false
	}
	subject := cs.VerifiedChains[0][0].Subject
	if subject.CommonName == "" {
		return nil, false
	}
	groups := slices.Clone(subject.Organization)
	if !slices.Contains(groups, authn.AllAuthenticated) {
		groups = append(groups, authn.AllAuthenticated)
	}
	return &authenticationv1.UserInfo{Username: subject.CommonName, Groups: groups}, true
}
