// Command authz is kubesplit's authz stage: it answers SubjectAccessReviews
// for the aggregator with the engines named by --authorization-mode, RBAC
// (fed from the API through the aggregator) by default; Node, ABAC, Casbin,
// Webhook, AlwaysAllow and AlwaysDeny are the others.
package main

import (
	"context"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	pkgauthz "github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/authz/authz"
)

func main() {
	cfg := authz.Config{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("authz", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6445")
	common.AddClientCAFlag(fs)
	fs.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", nil,
		"engines asked in order, the first Allow or Deny deciding: Node, RBAC, ABAC (needs --authorization-policy-file), "+
			"Casbin (needs --casbin-model and --casbin-policy), Webhook (needs --authorization-webhook-url), AlwaysAllow, AlwaysDeny "+
			"(default RBAC; not with --authorization-config)")
	fs.StringVar(&cfg.AuthorizationConfigFile, "authorization-config", "",
		"kube's structured authorization configuration (apiserver.config.k8s.io AuthorizationConfiguration): the chain, "+
			"webhooks with their own timeouts, failure policies and CEL match conditions; not with --authorization-mode")
	fs.StringVar(&cfg.PolicyFile, "authorization-policy-file", "", "ABAC policy file, kube's format (one JSON Policy a line); reloaded on change")
	fs.StringVar(&cfg.CasbinModel, "casbin-model", "", "the Casbin mode's casbin model (.conf); reloaded on change")
	fs.StringVar(&cfg.CasbinPolicy, "casbin-policy", "", "the Casbin mode's casbin policy (.csv); reloaded on change")
	fs.StringVar(&cfg.WebhookURL, "authorization-webhook-url", "", "SubjectAccessReview endpoint the Webhook mode asks")
	identityKeys := fs.String("identity-public-key-file", "",
		"PEM file of the aggregator's public key(s): reviews must carry its signed identity assertion (required)")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", authz.DefaultIdentityIssuer, "issuer the aggregator's assertions name")
	kubeconfig := fs.String("kubeconfig", "",
		"kubeconfig reaching the API through the aggregator, with credentials the aggregator allows without asking authz (system:masters); required by RBAC")
	fs.DurationVar(&cfg.RBACDebounce, "rbac-debounce", authz.DefaultRBACDebounce, "how long a change to RBAC objects waits for more before the policy is rebuilt")
	serve.Main("authz", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		if len(cfg.AuthorizationModes) == 0 && cfg.AuthorizationConfigFile == "" {
			cfg.AuthorizationModes = []string{pkgauthz.ModeRBAC}
		}
		if err := load(&cfg, *identityKeys, *kubeconfig); err != nil {
			return nil, err
		}
		return authz.Start(ctx, cfg)
	})
}

// load reads the files the flags name into cfg.
func load(cfg *authz.Config, identityKeys, kubeconfig string) error {
	if identityKeys != "" {
		keys, err := identity.LoadPublicKeys(identityKeys)
		if err != nil {
			return err
		}
		cfg.IdentityKeys = keys
	}
	if kubeconfig != "" {
		rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return err
		}
		cfg.RESTConfig = rc
	}
	return nil
}
