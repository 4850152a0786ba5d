// Command authn is kubesplit's authn stage: it answers the aggregator's
// TokenReviews, issues service-account tokens and publishes its issuer's
// OpenID discovery documents. See package authn.
package main

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/services/authn/authn"
)

// options are the flags that are not fields of authn.Config as they are.
type options struct {
	addressFile, certDir, signingKeyFile, identityKeyFile, kubeconfig string
	listenFD                                                          int
}

func main() {
	cfg := authn.Config{}
	opts := options{}
	fs := pflag.NewFlagSet("authn", pflag.ContinueOnError)
	fs.StringVar(&cfg.BindAddress, "bind-address", "127.0.0.1:6446", "host:port to serve HTTP on (port 0 picks a free port); the stack's defaults are aggregator 6443, registry 6444, authz 6445, authn 6446")
	fs.IntVar(&opts.listenFD, "listen-fd", 0, "serve on this inherited listening socket instead of --bind-address (for supervisors and tests that reserve the port)")
	fs.StringVar(&opts.addressFile, "address-file", "", "write the URL served to this file once listening")
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
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	if err := run(cfg, opts); err != nil {
		fmt.Fprintln(os.Stderr, "authn:", err)
		os.Exit(1)
	}
}

func run(cfg authn.Config, opts options) error {
	if err := complete(&cfg, opts); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	srv, err := authn.Start(startCtx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer srv.Close()
	slog.Info("authn serving", "url", srv.URL())
	if opts.addressFile != "" {
		if err := os.WriteFile(opts.addressFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	slog.Info("authn shutting down")
	return nil
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
	if cfg.Client, err = kubernetes.NewForConfig(rc); err != nil {
		return err
	}
	if opts.listenFD > 0 {
		f := os.NewFile(uintptr(opts.listenFD), "listen-fd")
		ln, err := net.FileListener(f)
		_ = f.Close() // FileListener holds its own duplicate
		if err != nil {
			return fmt.Errorf("--listen-fd %d: %w", opts.listenFD, err)
		}
		cfg.Listener = ln
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
