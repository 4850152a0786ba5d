// Command authn is kubesplit's authn stage: it answers the aggregator's
// TokenReviews, issues service-account tokens and publishes its issuer's
// OpenID discovery documents. See package authn.
package main

import (
	"context"
	"crypto"
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/authn/authn"
)

// options are the flags that are not fields of authn.Config as they are.
type options struct {
	certDir, signingKeyFile, identityKeyFile, kubeconfig string
}

func main() {
	cfg := authn.Config{}
	opts := options{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("authn", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6446")
	common.AddClientCAFlag(fs)
	fs.StringVar(&opts.certDir, "cert-dir", ".run/authn", "directory of generated keys (the development service-account signing key)")
	fs.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "static token file (token,user,uid,\"group1,group2\")")
	fs.StringVar(&opts.signingKeyFile, "service-account-signing-key-file", "",
		"PEM private key signing service-account tokens; empty generates <cert-dir>/sa.key once")
	fs.StringVar(&cfg.ServiceAccountIssuer, "service-account-issuer", authn.DefaultServiceAccountIssuer, "issuer (iss) of service-account tokens, an https URL")
	fs.StringSliceVar(&cfg.APIAudiences, "api-audiences", nil, "audiences of the API; empty means the service-account issuer")
	fs.StringVar(&cfg.OIDC.IssuerURL, "oidc-issuer-url", "", "OpenID Connect provider whose ID tokens are accepted (optional)")
	fs.StringVar(&cfg.OIDC.ClientID, "oidc-client-id", "", "client id the provider's tokens must be issued for")
	fs.StringVar(&cfg.OIDC.UsernameClaim, "oidc-username-claim", "sub", "claim holding the user name")
	fs.StringVar(&cfg.OIDC.GroupsClaim, "oidc-groups-claim", "", "claim holding the groups")
	fs.StringVar(&opts.identityKeyFile, "identity-public-key-file", "",
		"PEM file of the aggregator's public key(s): TokenReview, TokenRequest and SelfSubjectReview need its signed assertion (required)")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", authn.DefaultIdentityIssuer, "issuer the aggregator's assertions name")
	fs.StringVar(&opts.kubeconfig, "kubeconfig", "", "kubeconfig reaching the API (through the aggregator) to look up ServiceAccounts (required)")
	serve.Main("authn", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		if err := complete(&cfg, opts); err != nil {
			return nil, err
		}
		return authn.Start(ctx, cfg)
	})
}

// complete fills the parts of cfg that flags name files for.
func complete(cfg *authn.Config, opts options) error {
	if opts.identityKeyFile == "" || opts.kubeconfig == "" {
		return errors.New("--identity-public-key-file and --kubeconfig are required")
	}
	keys, err := identity.LoadPublicKeys(opts.identityKeyFile)
	if err != nil {
		return err
	}
	cfg.IdentityKeys = keys
	if cfg.ServiceAccountKey, err = signingKey(opts); err != nil {
		return err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", opts.kubeconfig)
	if err != nil {
		return err
	}
	cfg.RESTConfig = rc
	if cfg.Client, err = kubernetes.NewForConfig(rc); err != nil {
		return err
	}
	return nil
}

// signingKey loads the configured key, or the development one under
// --cert-dir, generated the first time.
func signingKey(opts options) (crypto.Signer, error) {
	if opts.signingKeyFile != "" {
		return authn.LoadSigningKey(opts.signingKeyFile)
	}
	if err := os.MkdirAll(opts.certDir, 0o700); err != nil {
		return nil, err
	}
	return authn.LoadOrGenerateSigningKey(filepath.Join(opts.certDir, "sa.key"))
}
