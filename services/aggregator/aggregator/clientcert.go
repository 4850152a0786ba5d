package aggregator

import (
	"crypto/tls"
	"fmt"
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// serverTLSConfig is the serving certificate and, with a client CA file,
// the request for client certificates (kube's --client-ca-file): optional,
// so token and anonymous callers still connect, but verified when given,
// so a certificate from another CA fails the handshake instead of being
// quietly ignored. Go checks the certificate is for client auth.
func serverTLSConfig(cfg Config, cert tls.Certificate) (*tls.Config, error) {
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if err := serve.RequestClientCertificates(c, cfg.ClientCAFile); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return c, nil
}

// withAuthentication authenticates a verified client certificate first,
// then the bearer token (or anonymous, or 401), as kube's union does.
func withAuthentication(cfg Config, a authn.Authenticator, onResult func(*http.Request, string)) func(http.Handler) http.Handler {
	byToken := authn.WithAuthentication(a, authn.Options{Anonymous: cfg.AnonymousAuth, OnResult: onResult})
	if cfg.ClientCAFile == "" {
		return byToken
	}
	return authn.WithClientCertificates(byToken, onResult)
}
