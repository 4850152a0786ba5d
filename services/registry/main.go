// Command registry serves the Kubernetes REST API for kubesplit's resources
// from etcd. It is the only kubesplit service that talks to etcd.
package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

func main() {
	cfg := registry.Config{}
	fs := pflag.NewFlagSet("registry", pflag.ContinueOnError)
	fs.StringVar(&cfg.BindAddress, "bind-address", "127.0.0.1:6444", "host:port to serve on (port 0 picks a free port)")
	fs.StringSliceVar(&cfg.EtcdServers, "etcd-servers", nil, "etcd client URLs; empty starts an embedded etcd under --data-dir")
	fs.StringVar(&cfg.DataDir, "data-dir", ".run/etcd", "directory of the embedded etcd's data")
	fs.DurationVar(&cfg.CompactionInterval, "etcd-compaction-interval", 5*time.Minute, "how often to compact etcd's history (0 never)")
	fs.DurationVar(&cfg.EventTTL, "event-ttl", time.Hour, "how long Events are kept after their last update")
	identityKeys := fs.String("identity-public-key-file", "",
		"PEM file of the aggregator's public key(s): every request but health checks must carry its signed identity assertion")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", registry.DefaultIdentityIssuer, "issuer the aggregator's assertions name")
	fs.BoolVar(&cfg.InsecureAllowUnauthenticated, "insecure-allow-unauthenticated", false,
		"serve every request without checking who sends it (development only; loopback addresses only)")
	fs.BoolVar(&cfg.DisableControllers, "disable-controllers", false, "do not run the namespace, service account and garbage collection controllers")
	admissionURL := fs.String("admission-url", "",
		"base URL of the admission service (reviews go to "+admission.MutatingPath+" and "+admission.ValidatingPath+"); empty runs no admission")
	admissionKey := fs.String("admission-identity-key-file", "",
		"PEM private key the registry signs its admission reviews with; if the file does not exist, a new Ed25519 pair is "+
			"written to it and to <file>.pub (the public key to give the admission service). Required with --admission-url")
	admissionTimeout := fs.Duration("admission-timeout", admission.DefaultWebhookTimeout, "bound on one admission review")
	addressFile := fs.String("address-file", "", "write the URL the registry serves on to this file once it is ready")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == pflag.ErrHelp {
			return
		}
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(2)
	}
	if *identityKeys != "" {
		keys, err := identity.LoadPublicKeys(*identityKeys)
		if err != nil {
			fmt.Fprintln(os.Stderr, "registry:", err)
			os.Exit(1)
		}
		cfg.IdentityKeys = keys
	}
	if *admissionURL != "" {
		adm, err := remoteAdmission(*admissionURL, *admissionKey, *admissionTimeout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "registry:", err)
			os.Exit(1)
		}
		cfg.Admission = adm
	}
	if err := run(cfg, *addressFile); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
}

// remoteAdmission reaches the admission service at url, signing with the
// key in keyFile, made (with keyFile+".pub") on first use, each review
// bounded by timeout.
func remoteAdmission(url, keyFile string, timeout time.Duration) (registry.Admission, error) {
	if keyFile == "" {
		return registry.Admission{}, errors.New("--admission-url needs --admission-identity-key-file")
	}
	if _, err := os.Stat(keyFile); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
			return registry.Admission{}, err
		}
		if err := identity.GenerateKeyFiles(keyFile, keyFile+".pub"); err != nil {
			return registry.Admission{}, err
		}
		slog.Info("generated the registry's admission identity key", "key", keyFile, "public", keyFile+".pub")
	}
	key, err := identity.LoadPrivateKey(keyFile)
	if err != nil {
		return registry.Admission{}, err
	}
	return registry.RemoteAdmission(registry.RemoteAdmissionConfig{URL: url, Key: key, Timeout: timeout})
}

func run(cfg registry.Config, addressFile string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := registry.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	slog.Info("registry serving", "url", srv.URL())
	if addressFile != "" {
		if err := os.WriteFile(addressFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	slog.Info("registry shutting down")
	return nil
}
