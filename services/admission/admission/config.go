package admission

import (
	"crypto"
	"fmt"
	"log/slog"
	"net"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// DefaultIdentityIssuer is the iss the registry puts in its assertions to
// this service: the registry, not the aggregator, calls admission.
const DefaultIdentityIssuer = pkgadmission.RegistryIssuer

// LocalConfig configures the plugins, in process or behind Start.
type LocalConfig struct {
	// RESTConfig is how the plugins reach the API: through the aggregator,
	// as system:masters, which the aggregator allows without asking authz
	// so start-up cannot deadlock. Required unless Client is set; with both,
	// Client serves the typed calls and RESTConfig the metadata-only
	// informers.
	RESTConfig *rest.Config
	// Client, when set, is used instead of RESTConfig: the fused binary's
	// loopback client.
	Client kubernetes.Interface
	// EnablePlugins and DisablePlugins are kube's
	// --enable-admission-plugins and --disable-admission-plugins: every
	// plugin (DefaultPlugins) is on unless disabled; unknown names are an
	// error.
	EnablePlugins, DisablePlugins []string
	// Controllers picks the plugins' background controllers in
	// kube-controller-manager's --controllers syntax (resourcequota-controller,
	// the quota plugin's recount of every quota's usage); nil runs all.
	// Beside a kube-controller-manager, leave out what it runs.
	Controllers []string
	// DefaultTolerations are the seconds DefaultTolerationSeconds gives;
	// nil means kube's default, 300 for both.
	DefaultTolerations *TolerationSeconds
	// Identity names this replica in the Leases its background work runs
	// under; empty means hostname plus a random suffix.
	Identity string
	// Log receives the service's logs; nil means slog.Default().
	Log *slog.Logger
}

// Config configures the admission service.
type Config struct {
	// Endpoint is where the service listens (BindAddress, or an inherited
	// Listener) and with which certificate.
	serve.Endpoint
	LocalConfig
	// IdentityKeys are the registry's public keys: reviews are answered
	// only with the registry's signed assertion (issuer IdentityIssuer,
	// audience pkg/admission.Audience). Required unless
	// InsecureAllowUnauthenticated.
	IdentityKeys []crypto.PublicKey
	// IdentityIssuer is the iss accepted; empty means
	// DefaultIdentityIssuer.
	IdentityIssuer string
	// InsecureAllowUnauthenticated answers reviews without an assertion.
	// Only on a loopback address, for tests and development.
	InsecureAllowUnauthenticated bool
}

// withDefaults fills in the zero values.
func (cfg LocalConfig) withDefaults() LocalConfig {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return cfg
}

func (cfg LocalConfig) validate() error {
	if cfg.RESTConfig == nil && cfg.Client == nil {
		return fmt.Errorf("%w: no RESTConfig (kubeconfig) to reach the API", ErrInvalidConfig)
	}
	return nil
}

func (cfg Config) withDefaults() Config {
	if cfg.IdentityIssuer == "" {
		cfg.IdentityIssuer = DefaultIdentityIssuer
	}
	cfg.LocalConfig = cfg.LocalConfig.withDefaults()
	return cfg
}

// validate refuses what Start cannot run safely.
func (cfg Config) validate() error {
	switch {
	case cfg.BindAddress == "" && cfg.Listener == nil:
		return fmt.Errorf("%w: no bind address", ErrInvalidConfig)
	case cfg.InsecureAllowUnauthenticated && !cfg.loopback():
		return fmt.Errorf("%w: unauthenticated serving is only allowed on a loopback address", ErrInvalidConfig)
	case !cfg.InsecureAllowUnauthenticated && len(cfg.IdentityKeys) == 0:
		return fmt.Errorf("%w: no identity public key of the registry", ErrInvalidConfig)
	}
	return cfg.LocalConfig.validate()
}

// loopback tells whether the service listens on loopback only.
func (cfg Config) loopback() bool {
	addr := cfg.BindAddress
	if cfg.Listener != nil {
		addr = cfg.Listener.Addr().String()
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
