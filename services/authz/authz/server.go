package authz

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/pkg/stagecaller"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// Server is a running authz service.
type Server struct {
	*serve.Server
	cancel     context.CancelFunc
	authorizer authz.Authorizer
}

// Start runs the service until Close. It returns once it listens; its
// engines may still be syncing, which /readyz tells (the aggregator sends
// it reviews only once it is ready). ctx bounds the start only.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	verifier, err := identity.NewVerifier(identity.VerifierConfig{
		Keys: cfg.IdentityKeys, Issuer: cfg.IdentityIssuer, Audience: Audience,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	feed := revision.NewFeed()
	built, err := buildChain(runCtx, cfg, feed)
	if err != nil {
		cancel()
		return nil, err
	}
	// Shutdown waits for handlers to return but does not cancel them:
	// the revision streams end on their own when it starts.
	streams, stopStreams := context.WithCancel(runCtx)
	// Readers of /metrics are checked with the credentials RBAC is
	// followed with.
	catalog, err := served()
	if err != nil {
		stopStreams()
		cancel()
		return nil, err
	}
	outside, err := stagecaller.Outside(cfg.RESTConfig)
	if err != nil {
		stopStreams()
		cancel()
		return nil, err
	}
	h, err := observe.Backend("authz", cfg.RESTConfig, nil, catalog, routes(built, verifier, outside, revision.Handler(feed, streams.Done())))
	if err != nil {
		stopStreams()
		cancel()
		return nil, err
	}
	srv, err := serve.Start(ctx, cfg.Endpoint, h, cfg.Log)
	if err != nil {
		stopStreams()
		cancel()
		return nil, err
	}
	srv.OnShutdown(stopStreams)
	return &Server{Server: srv, cancel: cancel, authorizer: built.authorizer}, nil
}

// routes serves the reviews, their discovery and the revision stream to
// the aggregator only (the self reviews answer for the caller it
// asserts), SubjectAccessReviews to outside callers too (a kube-apiserver;
// see package stagecaller), and the health endpoints to anyone, so probes
// work.
func routes(e engines, v *identity.Verifier, outside stagecaller.Middleware, revisions http.Handler) http.Handler {
	mux := http.NewServeMux()
	asserted := identity.Require(v)
	mux.Handle("POST "+authz.SubjectAccessReviewPath, stagecaller.Accept(asserted, outside)(authz.NewSubjectAccessReviewHandler(e.authorizer)))
	mux.Handle("POST "+SelfSubjectAccessReviewPath, asserted(newSelfSubjectAccessReviewHandler(e.authorizer)))
	mux.Handle("POST "+SelfSubjectRulesReviewPath, asserted(newSelfSubjectRulesReviewHandler(e.rules)))
	mux.Handle("POST "+LocalSubjectAccessReviewPattern, asserted(newLocalSubjectAccessReviewHandler(e.authorizer)))
	handleDiscovery(mux, asserted)
	mux.Handle("GET "+revision.Path, asserted(revisions))
	// The server span first, so that a panic's answer is in it too.
	return tracing.Handler(recovery.Middleware(nil)(health.Probes(nil, e.checks)(apierror.ServeMux(mux))))
}

// Authorizer is the stage in process: the chain of engines the
// SubjectAccessReview endpoint answers with, for a composition that asks
// it directly (fused).
func (s *Server) Authorizer() authz.Authorizer { return s.authorizer }

// Close stops serving: in-flight reviews get a few seconds to finish,
// then the engines' background work (informers) stops.
func (s *Server) Close() {
	s.Server.Close()
	s.cancel()
}
