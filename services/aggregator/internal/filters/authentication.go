package filters

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// AuthenticationConfig configures WithAuthentication.
type AuthenticationConfig struct {
	// Authenticator checks bearer tokens.
	Authenticator authn.Authenticator
	// Anonymous lets a request without credentials through as
	// system:anonymous (--anonymous-auth).
	Anonymous bool
	// ClientCertificates authenticates a verified client certificate
	// first (--client-ca-file is set).
	ClientCertificates bool
	// OnResult is told each outcome: success, failure or error.
	OnResult func(*http.Request, string)
}

// WithAuthentication authenticates a verified client certificate first,
// then the bearer token (or anonymous, or 401), as kube's union does.
func WithAuthentication(cfg AuthenticationConfig) func(http.Handler) http.Handler {
	byToken := authn.WithAuthentication(cfg.Authenticator, authn.Options{Anonymous: cfg.Anonymous, OnResult: cfg.OnResult})
	if !cfg.ClientCertificates {
		return byToken
	}
	return authn.WithClientCertificates(byToken, cfg.OnResult)
}
