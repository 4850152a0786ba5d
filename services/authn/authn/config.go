package authn

import (
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// Defaults for Config.
const (
	// DefaultIdentityIssuer is the iss of the aggregator's assertions.
	DefaultIdentityIssuer = identity.DefaultIssuer
	// Audience is this service's name in the aggregator's assertions.
	Audience = "authn"
	// DefaultServiceAccountIssuer is the issuer of our service-account
	// tokens when none is configured.
	DefaultServiceAccountIssuer = "https://kubesplit.local"
)

// ErrInvalidConfig is wrapped by every error Start returns for a Config it
// cannot run with.
var ErrInvalidConfig = errors.New("authn: invalid configuration")

// Config configures Start. Fields follow kube-apiserver's flags where the
// concept is the same.
type Config struct {
	// Endpoint is where the service listens, and with which certificate
	// when it serves HTTPS.
	serve.Endpoint
	// IdentityKeys are the aggregator's public keys: every API request
	// must carry its assertion for audience Audience. Required.
	IdentityKeys []crypto.PublicKey
	// IdentityIssuer is the iss the assertions name; empty means
	// DefaultIdentityIssuer.
	IdentityIssuer string
	// TokenAuthFile is kube's --token-auth-file; empty means none.
	TokenAuthFile string
	// ServiceAccountKey signs service-account tokens (kube's
	// --service-account-signing-key-file). Required.
	ServiceAccountKey crypto.Signer
	// ServiceAccountIssuer is the tokens' iss (--service-account-issuer);
	// empty means DefaultServiceAccountIssuer. An https URL.
	ServiceAccountIssuer string
	// APIAudiences are kube's --api-audiences; empty means the issuer.
	APIAudiences []string
	// OIDC, when its IssuerURL is set, adds an OpenID Connect provider's
	// ID tokens (--oidc-*).
	OIDC oidc.Config
	// Client reaches the API (through the aggregator, with the service's
	// own credentials) to look up ServiceAccounts. Required.
	Client kubernetes.Interface
	// RESTConfig reaches the API as Client does; it is asked who may read
	// /metrics and /debug/pprof (nil lets nobody).
	RESTConfig *rest.Config
	// Log receives the service's messages; nil means slog.Default().
	Log *slog.Logger
	// Resync is the ServiceAccount informer's resync period; zero means
	// none (the watch alone keeps it current).
	Resync time.Duration
}

// validate checks cfg and fills in its defaults.
func (cfg *Config) validate() error {
	switch {
	case len(cfg.IdentityKeys) == 0:
		return fmt.Errorf("%w: the aggregator's identity public key is required", ErrInvalidConfig)
	case cfg.ServiceAccountKey == nil:
		return fmt.Errorf("%w: a service-account signing key is required", ErrInvalidConfig)
	case cfg.Client == nil:
		return fmt.Errorf("%w: a client of the API is required", ErrInvalidConfig)
	case cfg.Listener == nil && cfg.BindAddress == "":
		return fmt.Errorf("%w: a bind address or listener is required", ErrInvalidConfig)
	}
	if cfg.IdentityIssuer == "" {
		cfg.IdentityIssuer = DefaultIdentityIssuer
	}
	if cfg.ServiceAccountIssuer == "" {
		cfg.ServiceAccountIssuer = DefaultServiceAccountIssuer
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return nil
}
