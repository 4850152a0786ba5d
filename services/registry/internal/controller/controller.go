// Package controller runs the housekeeping controllers kube's
// controller-manager runs (namespace deletion, default service accounts,
// garbage collection) inside the registry. They reach the registry through
// its own HTTP API with client-go, exactly as kube-controller-manager reaches
// kube-apiserver, and each holds a coordination.k8s.io/v1 Lease so that with
// several registry replicas only one replica runs each controller.
package controller

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/leader"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/customresourcedefinition"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/garbagecollector"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/kubernetesservice"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/namespace"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/policystatus"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/rootcacertpublisher"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/serviceaccount"
)

// Config says how controllers reach the API and identify themselves.
type Config struct {
	// REST reaches the API (the registry itself, or the aggregator in
	// front of it). Required. Each controller uses a copy with its own user
	// agent; QPS and Burst left at zero are raised from client-go's 5/10,
	// which would throttle a namespace deletion to a crawl.
	REST *rest.Config
	// Identity is this replica's holder identity in the leases; empty means
	// the host name plus a random suffix.
	Identity string
	// LeaseNamespace holds the leases; empty means kube-system. It is
	// created if missing.
	LeaseNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's leader
	// election timings; zero means 15s, 10s and 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Logger receives the controllers' logs; nil means slog.Default().
	Logger *slog.Logger
	// KubernetesServiceIP is the cluster IP of the kubernetes Service, the
	// first address of the primary service range; invalid (zero) leaves
	// out the kubernetes service controller.
	KubernetesServiceIP netip.Addr
	// RootCA is the CA bundle published as kube-root-ca.crt in every
	// namespace (--root-ca-file); empty leaves out the publisher.
	RootCA []byte
	// Controllers picks the controllers to run in kube-controller-manager's
	// --controllers syntax: "*" is all, "name" adds one, "-name" leaves one
	// out; empty means all. Run them beside a kube-controller-manager with
	// its duplicates left out ("*,-namespace-controller,…").
	Controllers []string
}

// runner is one controller as Run starts it: built afresh for every term of
// leadership, so nothing from a lost term (informer caches, queued keys)
// leaks into the next.
type runner struct {
	name string
	// names are what --controllers calls it: kube-controller-manager's
	// name for the same controller first, then its older alias.
	names []string
	run   func(ctx context.Context, c clients, cfg Config, log *slog.Logger) error
	// configured, when set, says whether cfg has what the controller
	// needs; one that lacks it is not run.
	configured func(cfg Config) bool
}

// runners lists every controller Run starts, each under the lease
// "kubesplit-<name>-controller".
var runners = []runner{
	{"namespace", []string{"namespace-controller", "namespace"}, func(ctx context.Context, c clients, _ Config, log *slog.Logger) error {
		ctrl, err := namespace.New(namespace.Options{Client: c.kube, Dynamic: c.dynamic, Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, nil},
	{"serviceaccount", []string{"serviceaccount-controller", "serviceaccount"}, func(ctx context.Context, c clients, _ Config, log *slog.Logger) error {
		ctrl, err := serviceaccount.New(serviceaccount.Options{Client: c.kube, Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, nil},
	{"customresourcedefinition", []string{"customresourcedefinition"}, func(ctx context.Context, c clients, _ Config, log *slog.Logger) error {
		ctrl, err := customresourcedefinition.New(customresourcedefinition.Options{Dynamic: c.dynamic, Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, nil},
	{"garbagecollector", []string{"garbage-collector-controller", "garbagecollector"}, func(ctx context.Context, c clients, _ Config, log *slog.Logger) error {
		ctrl, err := garbagecollector.New(garbagecollector.Options{Dynamic: c.dynamic, Discovery: c.kube.Discovery(), Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, nil},
	{"kubernetesservice", []string{"kubernetes-service-controller", "kubernetesservice"}, func(ctx context.Context, c clients, cfg Config, log *slog.Logger) error {
		ctrl, err := kubernetesservice.New(kubernetesservice.Options{Client: c.kube, ServiceIP: cfg.KubernetesServiceIP, Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, func(cfg Config) bool { return cfg.KubernetesServiceIP.IsValid() }},
	{"policystatus", []string{"validatingadmissionpolicy-status-controller"}, func(ctx context.Context, c clients, _ Config, log *slog.Logger) error {
		return policystatus.Run(ctx, policystatus.Options{Client: c.kube, Log: log})
	}, nil},
	{"rootcacertpublisher", []string{"root-ca-certificate-publisher-controller", "root-ca-cert-publisher"}, func(ctx context.Context, c clients, cfg Config, log *slog.Logger) error {
		ctrl, err := rootcacertpublisher.New(rootcacertpublisher.Options{Client: c.kube, RootCA: cfg.RootCA, Log: log})
		if err != nil {
			return err
		}
		return ctrl.Run(ctx)
	}, func(cfg Config) bool { return len(cfg.RootCA) > 0 }},
}

// Run starts every controller and blocks until ctx ends. It returns an
// error only for an invalid Config; trouble reaching the API later is
// logged and retried.
func Run(ctx context.Context, cfg Config) error {
	cfg, err := cfg.complete()
	if err != nil {
		return err
	}
	log := cfg.Logger.With("component", "controller")
	leaseClient, err := leaderClient(cfg)
	if err != nil {
		return err
	}
	run, err := enabled(cfg.Controllers)
	if err != nil {
		return err
	}
	run = slices.DeleteFunc(run, func(r runner) bool {
		if r.configured != nil && !r.configured(cfg) {
			log.Info("controller not configured; not running it", "controller", r.name)
			return true
		}
		return false
	})
	built := make([]clients, len(run))
	for i, r := range run {
		if built[i], err = newClients(cfg.REST, r.name); err != nil {
			return fmt.Errorf("controller %s: %w", r.name, err)
		}
	}
	ensureNamespace(ctx, leaseClient.CoreV1(), cfg.LeaseNamespace, cfg.RetryPeriod, log)

	var wg sync.WaitGroup
	for i, r := range run {
		clog := log.With("controller", r.name)
		lease := leader.Config{Client: leaseClient.CoordinationV1(), Namespace: cfg.LeaseNamespace, Name: leaseName(r.name),
			Identity: cfg.Identity, LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.RenewDeadline, RetryPeriod: cfg.RetryPeriod, Log: clog}
		wg.Go(func() {
			leader.Run(ctx, lease, func(ctx context.Context) {
				// An error once the term is over is just the term ending.
				if err := r.run(ctx, built[i], cfg, clog); err != nil && ctx.Err() == nil {
					clog.Error("controller stopped", "err", err)
				}
			})
		})
	}
	wg.Wait()
	return nil
}

// leaseName is the Lease a controller holds.
func leaseName(controller string) string { return "kubesplit-" + controller + "-controller" }
