package aggregator

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// Server is a running aggregator.
type Server struct {
	url    string
	http   *http.Server
	cancel context.CancelFunc
	// revisions are the followers of authn's and authz's revision
	// streams (nil entries when not configured), kept for tests.
	revisions []*revisionFollower
}

// Start runs an aggregator until Close. It returns once it listens and
// its upstreams have been checked once, so a reachable registry is served
// at once. ctx bounds the start only.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
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
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Server{cancel: cancel}
	handler, err := s.assemble(runCtx, cfg, signer)
	if err != nil {
		cancel()
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.BindAddress)
	if err != nil {
		cancel()
		return nil, err
	}
	s.url = "https://" + ln.Addr().String()
	s.http = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// Go enables HTTP/2 by itself for a TLS listener served this way.
		TLSConfig: tlsConfig,
		ErrorLog:  slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := s.http.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("aggregator server stopped", "err", err)
		}
	}()
	return s, nil
}

// assemble starts the upstreams and builds the chain around them.
func (s *Server) assemble(ctx context.Context, cfg Config, signer *identity.Signer) (http.Handler, error) {
	ups, err := startUpstreams(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The stages' caches follow what authn and authz push, so a revoked
	// binding or a deleted account is not served from them.
	authnRevisions := newRevisionFollower(ups[authnUpstream], signer, cfg.Log)
	authzRevisions := newRevisionFollower(ups[authzUpstream], signer, cfg.Log)
	authenticator, err := newAuthenticator(cfg, webhookClient(ups[authnUpstream], signer), authnRevisions)
	if err != nil {
		return nil, err
	}
	authorizer, err := newAuthorizer(modeDeps{
		cfg: cfg, authzClient: webhookClient(ups[authzUpstream], signer), authzRevisions: authzRevisions,
	})
	if err != nil {
		return nil, err
	}
	authnRevisions.start(ctx)
	authzRevisions.start(ctx)
	s.revisions = []*revisionFollower{authnRevisions, authzRevisions}
	backends, err := newProxies(ups, signer, cfg)
	if err != nil {
		return nil, err
	}
	api, err := newAPIHandler(backends)
	if err != nil {
		return nil, err
	}
	return buildChain(cfg, stages{
		authenticator: authenticator, authorizer: authorizer, health: healthHandler(ups), api: api,
	})
}

// URL is the aggregator's base URL, https://host:port.
func (s *Server) URL() string { return s.url }

// Close stops serving: in-flight requests get a few seconds to finish,
// then the upstreams' health checks stop.
func (s *Server) Close() {
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = s.http.Shutdown(ctx)
		cancel()
	}
	s.cancel()
}
