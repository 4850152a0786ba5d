// Command kubesplit runs the whole chain in one process: the aggregator,
// authn, authz, admission and the registry, each stage called in process
// rather than over its webhook. It is the fused composition, for
// development and for measuring what the split costs (make bench); the
// split binaries are how kubesplit is deployed. See package fused.
package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/cmd/kubesplit/fused"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/admission/admission"
	"github.com/kubesplit/kubesplit/services/aggregator/aggregator"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

func main() {
	cfg := fused.Config{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("kubesplit", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6443")
	fs.Lookup("tls-cert-file").Usage = "serving certificate; empty generates a self-signed one under --cert-dir (always HTTPS)"
	fs.StringVar(&cfg.CertDir, "cert-dir", ".run/fused", "directory of generated certificates (ca.crt is the CA kubeconfigs trust) and keys")
	fs.StringSliceVar(&cfg.EtcdServers, "etcd-servers", nil, "etcd client URLs; empty starts an embedded etcd under --data-dir")
	fs.StringVar(&cfg.DataDir, "data-dir", ".run/fused/etcd", "directory of the embedded etcd's data")
	fs.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "static token file (token,user,uid,\"group1,group2\")")
	fs.BoolVar(&cfg.AnonymousAuth, "anonymous-auth", true, "serve requests without credentials as system:anonymous, to be authorized like anyone")
	fs.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", nil,
		"authz engines asked in order: Node, RBAC, ABAC, Casbin, AlwaysAllow, AlwaysDeny (default RBAC; not with --authorization-config)")
	fs.StringVar(&cfg.AuthorizationConfigFile, "authorization-config", "", "kube's structured authorization configuration (AuthorizationConfiguration); not with --authorization-mode")
	fs.StringVar(&cfg.AuthorizationPolicyFile, "authorization-policy-file", "", "the ABAC mode's policy file, kube's format; reloaded on change")
	fs.StringVar(&cfg.CasbinModel, "casbin-model", "", "the Casbin mode's casbin model (.conf); reloaded on change")
	fs.StringVar(&cfg.CasbinPolicy, "casbin-policy", "", "the Casbin mode's casbin policy (.csv); reloaded on change")
	fs.StringSliceVar(&cfg.EnableAdmissionPlugins, "enable-admission-plugins", nil, "admission plugins to enable besides the default ones")
	fs.StringSliceVar(&cfg.DisableAdmissionPlugins, "disable-admission-plugins", nil, "default admission plugins to disable")
	registry.AddKubeFlags(fs, &cfg.Registry)
	fs.Lookup("controllers").Usage += "; also admission's quota recount (resourcequota-controller)"
	aggregator.AddEndpointFlags(fs, &cfg.Aggregator)
	aggregator.AddConcurrencyFlags(fs, &cfg.Aggregator)
	cfg.DefaultTolerations = &admission.TolerationSeconds{}
	cfg.DefaultTolerations.AddFlags(fs)
	serve.Main("kubesplit", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		return fused.Start(ctx, cfg)
	})
}
