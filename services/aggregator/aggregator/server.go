package aggregator

import (
	"context"
	"log/slog"
	"net/http"

	"k8s.io/client-go/kubernetes"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/audit"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
)

// Server is a running aggregator.
type Server struct {
	*serve.Server
	cancel context.CancelFunc
	// revisions are the followers of authn's and authz's revision
	// streams (nil entries when not configured), kept for tests.
	revisions []*revisionFollower
	// audit writes the audit log; nil when there is none.
	audit *audit.Backend
	// logCheck watches the log, for the health endpoints.
	logCheck *health.LogCheck
	// leases is the client the endpoint lease is kept with.
	leases coordinationclient.LeasesGetter
	// endpoint keeps this replica's endpoint lease; nil when nothing is
	// advertised.
	endpoint *leaseKeeper
}

// Start runs an aggregator until Close. It returns once it listens and
// its upstreams have been checked once, so a reachable registry is served
// at once. ctx bounds the start only.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// The log check watches every write of the aggregator's log.
	logCheck := health.NewLogCheck(0)
	cfg.Log = slog.New(logCheck.Wrap(cfg.Log.Handler()))
	cert, err := servingCertificate(cfg)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := serverTLSConfig(cfg, cert)
	if err != nil {
		return nil, err
	}
	signer, err := newSigner(cfg)
	if err != nil {
		return nil, err
	}
	fp, err := loadFrontProxy(cfg)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Server{cancel: cancel, logCheck: logCheck}
	handler, err := s.assemble(runCtx, cfg, signer, fp)
	if err != nil {
		cancel()
		return nil, err
	}
	endpoint := cfg.Endpoint
	endpoint.TLSConfig = tlsConfig
	if s.Server, err = serve.Start(ctx, endpoint, handler, cfg.Log); err != nil {
		cancel()
		return nil, err
	}
	// The port is known only now that the listener is open.
	if e, ok := advertised(cfg, s.URL()); ok {
		s.endpoint = startLeaseKeeper(s.leases, e, cfg.EndpointLeaseDuration, cfg.Log)
	}
	return s, nil
}

// assemble starts the upstreams and the APIService controller, and builds
// the chain around them.
func (s *Server) assemble(ctx context.Context, cfg Config, signer *identity.Signer, fp *frontProxy) (http.Handler, error) {
	ups, err := startUpstreams(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The stages' caches follow what authn and authz push, so a revoked
	// binding or a deleted account is not served from them.
	authnRevisions := newRevisionFollower(ups[authnUpstream], signer, cfg.Log)
	authzRevisions := newRevisionFollower(ups[authzUpstream], signer, cfg.Log)
	measured := newMeasurements()
	authenticator, err := newAuthenticator(cfg, webhookClient(ups[authnUpstream], signer, measured.stages), authnRevisions, measured.authnCache.Observe)
	if err != nil {
		return nil, err
	}
	authorizer, err := newAuthorizer(modeDeps{
		cfg: cfg, authzClient: webhookClient(ups[authzUpstream], signer, measured.stages), authzRevisions: authzRevisions,
		onCacheLookup: measured.authzCache.Observe,
	})
	if err != nil {
		return nil, err
	}
	authnRevisions.start(ctx)
	authzRevisions.start(ctx)
	s.revisions = []*revisionFollower{authnRevisions, authzRevisions}
	backends, err := newProxies(ups, signer, cfg, measured.stages)
	if err != nil {
		return nil, err
	}
	api, routes, err := newAPIHandler(backends)
	if err != nil {
		return nil, err
	}
	served := discovery.NewServed(routes, 0)
	served.Fill()
	measured.countRequests(served)
	published := &publication{}
	restCfg := registryRESTConfig(ups[registryUpstream], signer)
	ctrl, err := startAPIServices(ctx, cfg, fp, restCfg, routes, published)
	if err != nil {
		return nil, err
	}
	flowControl, err := startFlowControl(ctx, cfg, restCfg)
	if err != nil {
		return nil, err
	}
	admission, err := startAdmissionUpstream(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The health checks' reads have a client, and a rate limit, of their own.
	healthClient, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	// The endpoint lease has a client of its own, so the health checks'
	// rate limit never delays a renewal.
	leaseClient, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	s.leases = leaseClient.CoordinationV1()
	probes := probes(healthDeps{
		ups: ups, admission: admission, kube: healthClient, registry: backends[registryUpstream], routes: routes,
		ctrl: ctrl, published: published, log: s.logCheck,
	})
	auditing, err := s.startAudit(cfg)
	if err != nil {
		return nil, err
	}
	if s.audit != nil {
		measured.countAudit(s.audit)
	}
	return buildChain(cfg, stages{
		authenticator: authenticator, authorizer: authorizer, probes: probes, api: api, audit: auditing,
		metrics: measured, flowControl: flowControl,
	})
}

// Close stops serving: the endpoint lease is removed first, so clients
// are steered elsewhere, then in-flight requests get a few seconds to
// finish, then the upstreams' health checks stop.
func (s *Server) Close() {
	if s.endpoint != nil {
		s.endpoint.stop()
	}
	if s.Server != nil {
		s.Server.Close()
	}
	s.cancel()
	if s.audit != nil {
		s.audit.Close()
	}
}
