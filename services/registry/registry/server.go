package registry

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/capabilities"

	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/embedetcd"
	"github.com/kubesplit/kubesplit/services/registry/internal/compactor"
	"github.com/kubesplit/kubesplit/services/registry/internal/customresource"
	"github.com/kubesplit/kubesplit/services/registry/internal/discovery"
	"github.com/kubesplit/kubesplit/services/registry/internal/handler"
	"github.com/kubesplit/kubesplit/services/registry/internal/openapi"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Server is a running registry.
type Server struct {
	server  *serve.Server
	handler *handler.Handler
	client  *clientv3.Client
	etcd    *embedetcd.Server // nil with an external etcd
	cancel  context.CancelFunc
	// stopControllers ends the controllers and waits for them, so they hand
	// back their leases while the server still answers.
	stopControllers func()
	stores          []*storage.Store
	customResources *customresource.Serving
	trust           *trust
}

// Start runs a registry until Close. It returns once the server answers and
// its caches are filled.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := newTrust(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{trust: t}
	// kube-apiserver's --allow-privileged, read by kube's pod validation.
	capabilities.Setup(cfg.AllowPrivileged, 0)
	if err := s.connect(cfg); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	backend := storage.NewBackend(runCtx, s.client)
	if err := backend.RegisterMetrics(cfg.Metrics); err != nil {
		s.Close()
		return nil, err
	}
	for _, info := range resource.Builtins() {
		var opts storage.StoreOptions
		if info.KeyPrefix() == "/registry/core/events/" {
			opts.TTL = cfg.EventTTL // both groups' Events
		}
		s.stores = append(s.stores, backend.NewStore(info, opts))
	}
	services, err := s.serviceIPs(cfg)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.handler = handler.New(s.stores, cfg.Admission)
	docs, err := openapi.New(resource.Builtins())
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("openapi: %w", err)
	}
	az, err := authorizer(cfg)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("authorizer: %w", err)
	}
	s.handler.SetAuthorizer(az)
	if err := s.serveConnect(cfg, az); err != nil {
		s.Close()
		return nil, fmt.Errorf("kubelet connections: %w", err)
	}
	s.handler.SetComponents(s.components)
	s.customResources = s.serveCustomResources(runCtx, backend, docs)
	h, err := observe.Backend("registry", cfg.RESTConfig, cfg.Metrics, s.handler, s.routes(discovery.New(s.discoverable()), docs))
	if err != nil {
		s.Close()
		return nil, err
	}
	if s.server, err = serve.Start(ctx, cfg.Endpoint, h, nil); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.waitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := services.EnsureDefaultServiceCIDR(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("default ServiceCIDR: %w", err)
	}
	if err := services.Repair(ctx, serviceip.RepairGrace); err != nil {
		slog.Warn("repairing Services' cluster IPs and node ports failed; retrying in the background", "err", err)
	}
	go services.RepairEvery(runCtx, serviceRepairInterval, serviceip.RepairGrace)
	if err := s.startBootstrap(ctx, runCtx, cfg); err != nil {
		s.Close()
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	go compactor.Run(runCtx, s.client, cfg.CompactionInterval)
	if !cfg.DisableControllers {
		ccfg, err := controllerConfig(cfg, s.restConfig())
		if err != nil {
			s.Close()
			return nil, err
		}
		s.stopControllers = startControllers(runCtx, ccfg)
	}
	return s, nil
}

// serviceRepairInterval is how often Services' cluster IPs and node ports
// are repaired after the start, kube's interval.
const serviceRepairInterval = 3 * time.Minute

// serviceIPs allocates Services' cluster IPs and node ports, keeping
// IPAddresses in the ipaddresses store.
func (s *Server) serviceIPs(cfg Config) (*serviceip.Allocator, error) {
	var stores serviceip.Stores
	networking := schema.GroupVersion{Group: "networking.k8s.io", Version: "v1"}
	for _, st := range s.stores {
		switch st.Info().GroupVersionResource() {
		case schema.GroupVersionResource{Version: "v1", Resource: "services"}:
			stores.Services = st
		case networking.WithResource("ipaddresses"):
			stores.IPAddresses = st
		case networking.WithResource("servicecidrs"):
			stores.ServiceCIDRs = st
		}
	}
	conf, err := cfg.serviceIPs()
	if err != nil {
		return nil, err
	}
	a, err := serviceip.New(s.client, stores, conf)
	if err != nil {
		return nil, err
	}
	stores.Services.Info().Allocator = a
	return a, nil
}

// connect reaches etcd: the configured cluster, or an embedded one.
func (s *Server) connect(cfg Config) error {
	endpoints := cfg.EtcdServers
	if len(endpoints) == 0 {
		e, err := embedetcd.Start(cfg.DataDir)
		if err != nil {
			return err
		}
		s.etcd = e
		endpoints = []string{e.Endpoint()}
	}
	client, err := embedetcd.NewClient(endpoints, cfg.EtcdTLS)
	if err != nil {
		if s.etcd != nil {
			s.etcd.Close()
		}
		return fmt.Errorf("connect to etcd: %w", err)
	}
	s.client = client
	return nil
}

// waitReady waits until every store's cache is filled.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !s.storesReady() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("caches not filled: %w", ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

func (s *Server) storesReady() bool {
	for _, st := range s.stores {
		if !st.Ready() {
			return false
		}
	}
	return s.customResources == nil || s.customResources.Synced()
}

// URL is the registry's base URL.
func (s *Server) URL() string { return s.server.URL() }

// restConfig reaches the registry itself, for its own bootstrap and
// controllers.
func (s *Server) restConfig() *rest.Config {
	// Over HTTPS it does not check its own certificate: it dials the
	// socket it listens on, and its requests are signed with a key only
	// it holds, so there is nobody else to tell apart.
	return s.trust.sign(&rest.Config{Host: s.URL(), QPS: -1, UserAgent: "kubesplit-registry",
		TLSClientConfig: rest.TLSClientConfig{Insecure: strings.HasPrefix(s.URL(), "https://")}})
}

// Close stops serving: watches end, in-flight requests get a few seconds
// to finish, then etcd is released.
func (s *Server) Close() {
	if s.stopControllers != nil {
		s.stopControllers()
	}
	if s.server != nil {
		s.handler.Shutdown()
		s.server.Close()
	}
	if s.cancel != nil {
		s.cancel()
	}
	if s.client != nil {
		_ = s.client.Close()
	}
	if s.etcd != nil {
		s.etcd.Close()
	}
}
