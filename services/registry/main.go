// Command registry serves the Kubernetes REST API for kubesplit's resources
// from etcd. It is the only kubesplit service that talks to etcd.
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
	if err := run(cfg, *addressFile); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
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
