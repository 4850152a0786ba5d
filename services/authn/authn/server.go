package authn

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"sync"

	pkgauthn "github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/pkg/stagecaller"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
	"github.com/kubesplit/kubesplit/services/authn/internal/serviceaccount"
)

// Server is a running authn service.
type Server struct {
	*serve.Server
	cancel        context.CancelFunc
	authenticator pkgauthn.Authenticator
}

// Start checks cfg, starts the ServiceAccount informer and serves. It
// returns once the listener is open; /readyz passes once the informer
// has its first list, since until then no service-account token can be
// checked. ctx bounds the start only; Close stops the server.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// Shutdown waits for handlers to return but does not cancel them:
	// the revision streams end on their own when it starts.
	streams := make(chan struct{})
	h, err := newHandlers(runCtx, cfg, streams)
	if err != nil {
		cancel()
		return nil, err
	}
	catalog, err := served()
	if err != nil {
		cancel()
		return nil, err
	}
	routes, err := observe.Backend("authn", cfg.RESTConfig, nil, catalog, newRouter(h))
	if err != nil {
		cancel()
		return nil, err
	}
	srv, err := serve.Start(ctx, cfg.Endpoint, routes, cfg.Log)
	if err != nil {
		cancel()
		return nil, err
	}
	srv.OnShutdown(sync.OnceFunc(func() { close(streams) }))
	return &Server{Server: srv, cancel: cancel, authenticator: h.authenticator}, nil
}

// newHandlers builds the authenticators and handlers of cfg; the informer
// runs until ctx is done, the revision streams until streams is.
func newHandlers(ctx context.Context, cfg Config, streams <-chan struct{}) (handlers, error) {
	verifier, err := identity.NewVerifier(identity.VerifierConfig{Keys: cfg.IdentityKeys, Issuer: cfg.IdentityIssuer, Audience: Audience})
	if err != nil {
		return handlers{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	issuer, err := serviceaccount.NewIssuer(serviceaccount.IssuerConfig{
		Key: cfg.ServiceAccountKey, Issuer: cfg.ServiceAccountIssuer, DefaultAudiences: cfg.APIAudiences,
	})
	if err != nil {
		return handlers{}, err
	}
	informer, err := serviceaccount.NewInformerLookup(cfg.Client, cfg.Resync)
	if err != nil {
		return handlers{}, err
	}
	authenticator, err := newAuthenticator(cfg, issuer, informer)
	if err != nil {
		return handlers{}, err
	}
	direct, err := serviceaccount.NewClientLookup(cfg.Client)
	if err != nil {
		return handlers{}, err
	}
	tokenRequest, err := serviceaccount.NewTokenRequestHandler(serviceaccount.TokenRequestHandlerConfig{Issuer: issuer, Lookup: direct})
	if err != nil {
		return handlers{}, err
	}
	docs, err := serviceaccount.NewDiscoveryHandler(serviceaccount.DiscoveryConfig{
		Issuer: cfg.ServiceAccountIssuer, Keys: []crypto.PublicKey{issuer.PublicKey()},
	})
	if err != nil {
		return handlers{}, err
	}
	// Every deletion (or re-creation under a new uid) bumps the stream
	// that tells the aggregator to drop its cached token reviews. The hook
	// runs after the informer's cache has the change, so a review asked
	// again at once already refuses the token.
	feed := revision.NewFeed()
	informer.OnDelete(func(string, string) { feed.Bump() })
	informer.Start(ctx)
	synced := health.Check{Name: "serviceaccount-informer", Func: func(context.Context) error {
		if !informer.HasSynced() {
			return errors.New("ServiceAccounts not listed yet")
		}
		return nil
	}}
	outside, err := stagecaller.Outside(cfg.RESTConfig)
	if err != nil {
		return handlers{}, err
	}
	return handlers{
		verifier:      verifier,
		outside:       outside,
		authenticator: authenticator,
		tokenReview:   pkgauthn.NewTokenReviewHandler(authenticator),
		tokenRequest:  tokenRequest,
		oidcDocs:      docs,
		revisions:     revision.Handler(feed, streams),
		ready:         []health.Check{synced},
	}, nil
}

// newAuthenticator is the union kube-apiserver would run for the same
// flags: the token file, service-account tokens, then the OIDC provider.
func newAuthenticator(cfg Config, issuer *serviceaccount.Issuer, lookup serviceaccount.Lookup) (pkgauthn.Authenticator, error) {
	var list []pkgauthn.Authenticator
	if cfg.TokenAuthFile != "" {
		tf, err := pkgauthn.NewTokenFile(cfg.TokenAuthFile)
		if err != nil {
			return nil, err
		}
		list = append(list, tf)
	}
	sa, err := serviceaccount.NewAuthenticator(serviceaccount.AuthenticatorConfig{
		Keys: []crypto.PublicKey{issuer.PublicKey()}, Issuers: []string{issuer.Issuer()}, APIAudiences: cfg.APIAudiences, Lookup: lookup,
	})
	if err != nil {
		return nil, err
	}
	list = append(list, sa)
	if cfg.OIDC.IssuerURL != "" {
		o, err := oidc.NewAuthenticator(cfg.OIDC)
		if err != nil {
			return nil, err
		}
		list = append(list, o)
	}
	return pkgauthn.Union(list...), nil
}

// Authenticator is the stage in process: what the TokenReview endpoint
// answers with, for a composition that calls it directly (fused).
func (s *Server) Authenticator() pkgauthn.Authenticator { return s.authenticator }

// Close stops serving, waiting a bounded time for requests in flight,
// and stops the informer.
func (s *Server) Close() {
	s.Server.Close()
	s.cancel()
}
