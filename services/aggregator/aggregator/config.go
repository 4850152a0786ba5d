package aggregator

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// Defaults for the zero values of Config.
const (
	// DefaultIdentityIssuer is the iss of the aggregator's assertions; the
	// registry's --identity-issuer defaults to the same.
	DefaultIdentityIssuer = identity.DefaultIssuer
	// DefaultAuthenticationCacheTTL is how long a webhook's answer for a
	// token is reused, as kube's --authentication-token-webhook-cache-ttl.
	DefaultAuthenticationCacheTTL = 10 * time.Second
	// DefaultAuthorizationCacheTTL is how long a webhook's decision is
	// reused. It is shorter than kube's 5 minutes because the policy
	// revision push that would invalidate answers early is not wired yet.
	DefaultAuthorizationCacheTTL = 10 * time.Second
)

// AuditConfig is kube-apiserver's audit log flags.
type AuditConfig struct {
	// LogPath is the log file, "-" for standard output (--audit-log-path).
	LogPath string
	// PolicyFile is the audit.k8s.io/v1 Policy (--audit-policy-file).
	PolicyFile string
	// MaxSizeMB, MaxBackups and MaxAgeDays rotate the file
	// (--audit-log-maxsize, --audit-log-maxbackup, --audit-log-maxage);
	// zero means never, keep all, keep forever.
	MaxSizeMB, MaxBackups, MaxAgeDays int
	// BufferSize bounds the events waiting to be written
	// (--audit-log-buffer-size); beyond it events are dropped and
	// counted, never waited for.
	BufferSize int
}

// UpstreamURLs are the base URLs (scheme://host[:port]) of the services
// behind the aggregator. A DNS name stands for every address it resolves
// to (see the upstream package).
type UpstreamURLs struct {
	// Registry serves the Kubernetes API itself. Required.
	Registry []string
	// Authn serves TokenReview; when set, tokens the local token file does
	// not know are asked there, and authentication.k8s.io is routed there.
	Authn []string
	// Authz serves SubjectAccessReview, for the "Webhook" authorization
	// mode, and authorization.k8s.io is routed there.
	Authz []string
	// Admission is the admission service the registry's writes pass. No
	// request is routed there: it is asked only how it is, for the health
	// endpoints (upstream-admission and kube's
	// poststarthook/start-apiserver-admission-initializer).
	Admission []string
	// AuthStartsLater says that Authn and Authz start after the
	// aggregator, in its process (the fused binary): they are not checked
	// before the aggregator's Start returns, which would wait out the
	// check timeout on listeners nothing serves yet, but by the rechecks
	// that follow (every upstream.RecheckEvery).
	AuthStartsLater bool
}

// Config configures an aggregator. Field names follow kube-apiserver's
// flags where the concept is the same.
type Config struct {
	// Endpoint is where the aggregator listens (kube's --bind-address and
	// --secure-port together; port 0 picks a free port). It always serves
	// HTTPS: TLSCertFile and TLSPrivateKeyFile are the serving certificate
	// and its key (--tls-cert-file, --tls-private-key-file); when both are
	// empty, a self-signed CA and a certificate for 127.0.0.1 and localhost
	// are generated under CertDir on the first start and reused afterwards.
	// Its TLSConfig is the aggregator's own to set.
	serve.Endpoint
	// CertDir holds the generated certificates (ca.crt, which kubeconfigs
	// trust, apiserver.crt, apiserver.key) and the generated identity key
	// (--cert-dir). Required unless both the TLS files and IdentityKeyFile
	// are given.
	CertDir string
	// IdentityKeyFile is the aggregator's private key, which signs the
	// identity assertions its upstreams verify. Empty means
	// CertDir/identity.key, generated with CertDir/identity.pub (the file
	// to give upstreams) when absent.
	IdentityKeyFile string
	// IdentityIssuer names the aggregator in its assertions; empty means
	// DefaultIdentityIssuer.
	IdentityIssuer string
	// Upstreams are the services requests are forwarded to.
	Upstreams UpstreamURLs
	// UpstreamCAFile, when set, holds the CA certificates that upstreams'
	// https serving certificates must chain to; empty means the system's.
	UpstreamCAFile string
	// ProxyClientCertFile and ProxyClientKeyFile are the client
	// certificate the aggregator presents to APIService backends
	// (--proxy-client-cert-file, --proxy-client-key-file), which check it
	// before believing the X-Remote-* headers. Both empty means
	// CertDir/front-proxy-client.crt and .key, generated on the first
	// start with the CA that signs them, CertDir/front-proxy-ca.crt.
	ProxyClientCertFile, ProxyClientKeyFile string
	// RequestHeaderClientCAFile is the CA that signed ProxyClientCertFile
	// (--requestheader-client-ca-file), published for extension servers in
	// kube-system/extension-apiserver-authentication. Required with
	// ProxyClientCertFile.
	RequestHeaderClientCAFile string
	// RequestHeaderAllowedNames are the common names of proxy client
	// certificates extension servers are told to accept
	// (--requestheader-allowed-names); nil means the generated
	// certificate's ("front-proxy-client") when it is generated, and any
	// name otherwise.
	RequestHeaderAllowedNames []string
	// ClientCAFile is a PEM bundle of the CAs that sign client
	// certificates (--client-ca-file). When set, a client may present a
	// certificate they sign: its common name is the user and its
	// organizations the groups, tried before any bearer token. A
	// certificate they do not sign fails the TLS handshake. Empty asks for
	// no certificates.
	ClientCAFile string
	// TokenAuthFile is a static token file (--token-auth-file), checked in
	// the aggregator itself before any authn upstream: the fused
	// composition when no authn upstream is given.
	TokenAuthFile string
	// AnonymousAuth lets requests without credentials through as
	// system:anonymous (--anonymous-auth), to be authorized like anyone.
	// The zero value refuses them with 401, so a forgotten setting denies.
	AnonymousAuth bool
	// AuthorizationMode lists the authorizers asked in order
	// (--authorization-mode): "AlwaysAllow", "AlwaysDeny", "Webhook". The
	// system:masters group is always allowed first, without asking them.
	// Required.
	AuthorizationMode []string
	// MaxRequestsInflight and MaxMutatingRequestsInflight bound the
	// requests served at once (--max-requests-inflight,
	// --max-mutating-requests-inflight); zero means no bound.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// EnablePriorityAndFairness replaces those two bounds by kube's API
	// Priority and Fairness (--enable-priority-and-fairness, true in the
	// binary as in kube): their sum is the seats it shares out among the
	// cluster's priority levels, with fair queuing between flows.
	EnablePriorityAndFairness bool
	// RequestTimeout bounds a non-long-running request (--request-timeout);
	// zero means the filters' default, 60s.
	RequestTimeout time.Duration
	// AuthenticationCacheTTL is how long an authn webhook's answer is
	// reused; zero means DefaultAuthenticationCacheTTL.
	AuthenticationCacheTTL time.Duration
	// AuthorizationCacheTTL is how long an authz webhook's decision is
	// reused; zero means DefaultAuthorizationCacheTTL.
	AuthorizationCacheTTL time.Duration
	// Audit, when its LogPath and PolicyFile are both set, writes an
	// audit.k8s.io/v1 event log as kube-apiserver's --audit-log-* flags do.
	Audit AuditConfig
	// Authenticator and Authorizer, when set, are the authn and authz
	// stages in this process (the fused composition): they answer where
	// the authn upstream's TokenReview and the Webhook mode's
	// SubjectAccessReview would be asked, with no cache in front (they
	// answer from memory). The authn and authz upstreams, if given, then
	// only serve their own APIs (TokenRequest, self reviews).
	Authenticator authn.Authenticator
	Authorizer    authz.Authorizer
	// AdvertiseAddress is the IP address this replica is advertised at in
	// the kubernetes Service's endpoints (--advertise-address). Empty
	// means the bind address, or the host's first non-loopback address
	// when the bind address is unspecified, as kube-apiserver picks it;
	// when that default is a loopback address (a development stack on
	// 127.0.0.1), nothing is advertised.
	AdvertiseAddress string
	// EndpointReconcilerType is kube-apiserver's --endpoint-reconciler-type:
	// "lease" (empty means it) keeps a Lease the registry builds the
	// kubernetes Service's endpoints from; "none" keeps none.
	EndpointReconcilerType string
	// EndpointLeaseDuration is how long the Lease counts after each
	// renewal, renewed at two thirds of it; zero means 15s, kube's TTL of
	// its /masterleases/ keys.
	EndpointLeaseDuration time.Duration
	// Log receives the aggregator's logs; nil means slog.Default().
	Log *slog.Logger
}

// withDefaults returns cfg with its zero values filled in.
func (cfg Config) withDefaults() Config {
	if cfg.IdentityIssuer == "" {
		cfg.IdentityIssuer = DefaultIdentityIssuer
	}
	if cfg.AuthenticationCacheTTL == 0 {
		cfg.AuthenticationCacheTTL = DefaultAuthenticationCacheTTL
	}
	if cfg.AuthorizationCacheTTL == 0 {
		cfg.AuthorizationCacheTTL = DefaultAuthorizationCacheTTL
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.EndpointReconcilerType == "" {
		cfg.EndpointReconcilerType = EndpointReconcilerLease
	}
	if cfg.EndpointLeaseDuration == 0 {
		cfg.EndpointLeaseDuration = DefaultEndpointLeaseDuration
	}
	return cfg
}

// validate refuses what Start cannot run; the stage constructors check
// the rest.
func (cfg Config) validate() error {
	switch {
	case cfg.BindAddress == "" && cfg.Listener == nil:
		return fmt.Errorf("%w: no bind address", ErrInvalidConfig)
	case len(cfg.Upstreams.Registry) == 0:
		return fmt.Errorf("%w: no registry upstream", ErrInvalidConfig)
	case (cfg.TLSCertFile == "") != (cfg.TLSPrivateKeyFile == ""):
		return fmt.Errorf("%w: TLS certificate and key must be given together", ErrInvalidConfig)
	case (cfg.ProxyClientCertFile == "") != (cfg.ProxyClientKeyFile == ""):
		return fmt.Errorf("%w: proxy client certificate and key must be given together", ErrInvalidConfig)
	case cfg.ProxyClientCertFile != "" && cfg.RequestHeaderClientCAFile == "":
		return fmt.Errorf("%w: a proxy client certificate needs the requestheader client CA that signed it", ErrInvalidConfig)
	case cfg.CertDir == "" && (cfg.TLSCertFile == "" || cfg.IdentityKeyFile == "" || cfg.ProxyClientCertFile == ""):
		return fmt.Errorf("%w: a cert dir is needed to generate what is not given", ErrInvalidConfig)
	case cfg.EnablePriorityAndFairness && cfg.MaxRequestsInflight+cfg.MaxMutatingRequestsInflight <= 0:
		return fmt.Errorf("%w: with priority and fairness, the max-inflight limits must sum to a positive number of seats", ErrInvalidConfig)
	case cfg.RequestTimeout < 0 || cfg.AuthenticationCacheTTL < 0 || cfg.AuthorizationCacheTTL < 0:
		return fmt.Errorf("%w: negative duration", ErrInvalidConfig)
	}
	if err := validateEndpointReconciler(cfg); err != nil {
		return err
	}
	return validateModes(cfg.AuthorizationMode, len(cfg.Upstreams.Authz) > 0 || cfg.Authorizer != nil)
}

// validateModes checks the authorization modes as kube does: known names,
// none twice, and Webhook only with an authz upstream to ask.
func validateModes(modes []string, haveAuthz bool) error {
	if err := authz.CheckModes(modes, authorizationModes); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if slices.Contains(modes, authz.ModeWebhook) && !haveAuthz {
		return fmt.Errorf("%w: authorization mode %q needs an authz upstream", ErrInvalidConfig, authz.ModeWebhook)
	}
	return nil
}
