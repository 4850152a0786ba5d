// Command authz is kubesplit's authz stage: it answers SubjectAccessReviews
// for the aggregator with the engines named by --authorization-mode, RBAC
// (fed from the API through the aggregator) by default.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/services/authz/authz"
)

func main() {
	cfg := authz.Config{}
	fs := pflag.NewFlagSet("authz", pflag.ContinueOnError)
	fs.StringVar(&cfg.BindAddress, "bind-address", "127.0.0.1:6445", "host:port to serve on (port 0 picks a free port)")
	fs.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", []string{authz.ModeRBAC},
		"engines asked in order, the first Allow or Deny deciding: RBAC, AlwaysAllow, AlwaysDeny, Webhook (needs --authorization-webhook-url)")
	fs.StringVar(&cfg.WebhookURL, "authorization-webhook-url", "", "SubjectAccessReview endpoint the Webhook mode asks")
	identityKeys := fs.String("identity-public-key-file", "",
		"PEM file of the aggregator's public key(s): reviews must carry its signed identity assertion (required)")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", authz.DefaultIdentityIssuer, "issuer the aggregator's assertions name")
	kubeconfig := fs.String("kubeconfig", "",
		"kubeconfig reaching the API through the aggregator, with credentials the aggregator allows without asking authz (system:masters); required by RBAC")
	fs.DurationVar(&cfg.RBACDebounce, "rbac-debounce", authz.DefaultRBACDebounce, "how long a change to RBAC objects waits for more before the policy is rebuilt")
	addressFile := fs.String("address-file", "", "write the URL authz serves on to this file once it listens")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == pflag.ErrHelp {
			return
		}
		os.Exit(2)
	}
	if err := load(&cfg, *identityKeys, *kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "authz:", err)
		os.Exit(1)
	}
	if err := run(cfg, *addressFile); err != nil {
		fmt.Fprintln(os.Stderr, "authz:", err)
		os.Exit(1)
	}
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

func run(cfg authz.Config, addressFile string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	srv, err := authz.Start(startCtx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer srv.Close()
	slog.Info("authz serving", "url", srv.URL())
	if addressFile != "" {
		if err := os.WriteFile(addressFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	slog.Info("authz shutting down")
	return nil
}
