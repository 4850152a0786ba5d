package authz

import (
	"crypto"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/authz/internal/filewatch"
)

// Defaults for the zero values of Config.
const (
	// DefaultIdentityIssuer is the iss the aggregator puts in its
	// assertions (the aggregator's own default).
	DefaultIdentityIssuer = identity.DefaultIssuer
	// Audience is the aud the aggregator's assertions to this service
	// carry: the aggregator names its upstreams so.
	Audience = "authz"
	// DefaultRBACDebounce is how long a change to the RBAC objects waits
	// for more before the policy is rebuilt, so that a burst (kubectl
	// apply of a whole directory, the informers' initial list) costs one
	// rebuild rather than one per object.
	DefaultRBACDebounce = 10 * time.Millisecond
)

// Config configures the authz service. Field names follow kube-apiserver's
// flags where the concept is the same.
type Config struct {
	// Endpoint is where the service listens (BindAddress or an inherited
	// Listener; required), and with which certificate when it serves
	// HTTPS.
	serve.Endpoint
	// AuthorizationModes lists the engines asked in order
	// (--authorization-mode): "Node", "RBAC", "ABAC", "Casbin",
	// "Webhook", "AlwaysAllow", "AlwaysDeny". The first Allow or Deny
	// decides. Required unless AuthorizationConfigFile is given; a name
	// given twice is an error.
	AuthorizationModes []string
	// AuthorizationConfigFile is kube's structured authorization
	// configuration (--authorization-config): the chain as an
	// apiserver.config.k8s.io AuthorizationConfiguration, webhooks with
	// their own timeouts, failure policies and CEL match conditions
	// included. Mutually exclusive with AuthorizationModes, as in kube.
	AuthorizationConfigFile string
	// WebhookURL is the SubjectAccessReview endpoint the "Webhook" mode
	// asks (--authorization-webhook-url). Required with that mode.
	WebhookURL string
	// PolicyFile is the ABAC mode's policy, kube's format: a JSON
	// abac.authorization.kubernetes.io Policy a line
	// (--authorization-policy-file). Required with that mode.
	PolicyFile string
	// CasbinModel and CasbinPolicy are the Casbin mode's casbin model
	// (.conf) and policy (.csv) files (--casbin-model, --casbin-policy).
	// Required with that mode.
	CasbinModel, CasbinPolicy string
	// PolicyReloadInterval is how often the policy files (ABAC, Casbin)
	// are checked for changes; zero means filewatch.DefaultInterval.
	PolicyReloadInterval time.Duration
	// IdentityKeys are the aggregator's public keys: a review is answered
	// only with the aggregator's signed assertion, so nobody can probe the
	// policy by talking to authz directly. Required.
	IdentityKeys []crypto.PublicKey
	// IdentityIssuer is the iss accepted on assertions; empty means
	// DefaultIdentityIssuer.
	IdentityIssuer string
	// RESTConfig is how the service reaches the Kubernetes API (through
	// the aggregator) to watch RBAC objects, with credentials of its own
	// that the aggregator allows without asking authz (system:masters), so
	// start-up cannot deadlock. Required with the "RBAC" mode.
	RESTConfig *rest.Config
	// RBACDebounce delays a policy rebuild after a change; zero means
	// DefaultRBACDebounce.
	RBACDebounce time.Duration
	// Log receives the service's logs; nil means slog.Default().
	Log *slog.Logger
}

// withDefaults returns cfg with its zero values filled in.
func (cfg Config) withDefaults() Config {
	if cfg.IdentityIssuer == "" {
		cfg.IdentityIssuer = DefaultIdentityIssuer
	}
	if cfg.RBACDebounce == 0 {
		cfg.RBACDebounce = DefaultRBACDebounce
	}
	if cfg.PolicyReloadInterval == 0 {
		cfg.PolicyReloadInterval = filewatch.DefaultInterval
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return cfg
}

// validate refuses what Start cannot run; the modes' constructors check
// what each needs.
func (cfg Config) validate() error {
	switch {
	case cfg.BindAddress == "" && cfg.Listener == nil:
		return fmt.Errorf("%w: no bind address", ErrInvalidConfig)
	case len(cfg.IdentityKeys) == 0:
		return fmt.Errorf("%w: no identity public key of the aggregator", ErrInvalidConfig)
	case cfg.PolicyReloadInterval < 0:
		return fmt.Errorf("%w: negative policy reload interval", ErrInvalidConfig)
	case cfg.RBACDebounce < 0:
		return fmt.Errorf("%w: negative RBAC debounce", ErrInvalidConfig)
	case len(cfg.AuthorizationModes) == 0 && cfg.AuthorizationConfigFile == "":
		return fmt.Errorf("%w: no authorization mode", ErrInvalidConfig)
	}
	return nil
}
