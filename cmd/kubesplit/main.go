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
	fs.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", []string{"RBAC"}, "authz engines asked in order: RBAC, AlwaysAllow, AlwaysDeny, Webhook")
	fs.StringSliceVar(&cfg.EnableAdmissionPlugins, "enable-admission-plugins", nil, "admission plugins to enable besides the default ones")
	fs.StringSliceVar(&cfg.DisableAdmissionPlugins, "disable-admission-plugins", nil, "default admission plugins to disable")
	cfg.DefaultTolerations = &admission.TolerationSeconds{}
	cfg.DefaultTolerations.AddFlags(fs)
	fs.BoolVar(&cfg.DisableControllers, "disable-controllers", false, "do not run the registry's controllers")
	serve.Main("kubesplit", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		return fused.Start(ctx, cfg)
	})
}
