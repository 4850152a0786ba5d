// Command aggregator is kubesplit's front door: it serves HTTPS to kubectl,
// authenticates and authorizes every request, and forwards it to the
// service that serves its path with a signed identity assertion.
package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/aggregator/aggregator"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/filters"
)

func main() {
	cfg := aggregator.Config{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("aggregator", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6443")
	common.TracingEdge = true
	fs.Lookup("tls-cert-file").Usage = "serving certificate; empty generates a self-signed one under --cert-dir (the aggregator always serves HTTPS)"
	fs.StringVar(&cfg.CertDir, "cert-dir", ".run/aggregator",
		"directory of generated certificates (ca.crt is the CA kubeconfigs trust) and of the generated identity key")
	fs.StringVar(&cfg.IdentityKeyFile, "identity-key-file", "",
		"private key signing the identity assertions upstreams verify; empty generates <cert-dir>/identity.key and identity.pub")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", aggregator.DefaultIdentityIssuer, "issuer named in identity assertions")
	fs.StringSliceVar(&cfg.Upstreams.Registry, "registry-url", nil, "base URLs of the registry (required)")
	fs.StringSliceVar(&cfg.Upstreams.Authn, "authn-url", nil, "base URLs of the authn service (TokenReview)")
	fs.StringSliceVar(&cfg.Upstreams.Authz, "authz-url", nil, "base URLs of the authz service (SubjectAccessReview)")
	fs.StringSliceVar(&cfg.Upstreams.Admission, "admission-url", nil,
		"base URLs of the admission service the registry calls, asked only for its health (poststarthook/start-apiserver-admission-initializer)")
	fs.StringVar(&cfg.UpstreamCAFile, "upstream-ca-file", "", "CA certificates upstreams' https certificates chain to; empty means the system's")
	fs.StringVar(&cfg.ClientCAFile, "client-ca-file", "",
		"PEM bundle of CAs signing client certificates; a verified certificate authenticates as its CN, with its O as groups")
	fs.StringVar(&cfg.ProxyClientCertFile, "proxy-client-cert-file", "",
		"client certificate presented to APIService backends; empty generates <cert-dir>/front-proxy-client.crt with its CA, front-proxy-ca.crt")
	fs.StringVar(&cfg.ProxyClientKeyFile, "proxy-client-key-file", "", "private key of --proxy-client-cert-file")
	fs.StringVar(&cfg.RequestHeaderClientCAFile, "requestheader-client-ca-file", "",
		"CA that signed --proxy-client-cert-file, published in kube-system/extension-apiserver-authentication")
	fs.StringSliceVar(&cfg.RequestHeaderAllowedNames, "requestheader-allowed-names", nil,
		"common names of proxy client certificates extension servers accept (published); empty means front-proxy-client for a generated certificate, any otherwise")
	fs.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "static token file checked in the aggregator itself, before any authn service")
	fs.BoolVar(&cfg.AnonymousAuth, "anonymous-auth", true, "serve requests without credentials as system:anonymous, to be authorized like anyone")
	fs.StringSliceVar(&cfg.AuthorizationMode, "authorization-mode", []string{authz.ModeWebhook},
		"authorizers asked in order after system:masters: AlwaysAllow, AlwaysDeny, Webhook (needs --authz-url)")
	aggregator.AddConcurrencyFlags(fs, &cfg)
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", filters.DefaultRequestTimeout, "time limit of a non-long-running request")
	fs.DurationVar(&cfg.AuthenticationCacheTTL, "authentication-token-webhook-cache-ttl", aggregator.DefaultAuthenticationCacheTTL,
		"how long the authn service's answers are cached")
	fs.DurationVar(&cfg.AuthorizationCacheTTL, "authorization-webhook-cache-ttl", aggregator.DefaultAuthorizationCacheTTL,
		"how long the authz service's decisions are cached")
	fs.StringVar(&cfg.Audit.LogPath, "audit-log-path", "", "audit log file (JSON lines of audit.k8s.io/v1 Events), - for standard output; needs --audit-policy-file")
	fs.StringVar(&cfg.Audit.PolicyFile, "audit-policy-file", "", "audit.k8s.io/v1 Policy saying what is audited at which level")
	fs.IntVar(&cfg.Audit.MaxSizeMB, "audit-log-maxsize", 0, "megabytes at which the audit log is rotated (0 never)")
	fs.IntVar(&cfg.Audit.MaxBackups, "audit-log-maxbackup", 0, "rotated audit logs kept (0 all)")
	fs.IntVar(&cfg.Audit.MaxAgeDays, "audit-log-maxage", 0, "days rotated audit logs are kept (0 forever)")
	fs.IntVar(&cfg.Audit.BufferSize, "audit-log-buffer-size", 10000, "audit events waiting to be written; beyond it events are dropped and counted")
	aggregator.AddEndpointFlags(fs, &cfg)
	serve.Main("aggregator", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		return aggregator.Start(ctx, cfg)
	})
}
