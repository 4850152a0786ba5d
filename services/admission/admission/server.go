package admission

import (
	"context"
	"fmt"
	"net/http"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/pkg/stagecaller"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// Server is a running admission service.
type Server struct {
	*serve.Server
	local *Local
}

// Start builds the plugins (NewLocal) and serves them. It returns once it
// listens; /readyz passes once the informers have synced. ctx bounds the
// start only; Close stops everything.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	var verifier *identity.Verifier
	if !cfg.InsecureAllowUnauthenticated {
		v, err := identity.NewVerifier(identity.VerifierConfig{
			Keys: cfg.IdentityKeys, Issuer: cfg.IdentityIssuer, Audience: pkgadmission.Audience,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		verifier = v
	}
	local, err := NewLocal(ctx, cfg.LocalConfig)
	if err != nil {
		return nil, err
	}
	// Readers of /metrics are checked with the plugins' own credentials.
	// Its webhooks are not API resources: no request names one.
	outside, err := stagecaller.Outside(cfg.RESTConfig)
	if err != nil {
		local.Close()
		return nil, err
	}
	h, err := observe.Backend("admission", cfg.RESTConfig, nil, nil, routes(local, verifier, outside))
	if err != nil {
		local.Close()
		return nil, err
	}
	srv, err := serve.Start(ctx, cfg.Endpoint, h, cfg.Log)
	if err != nil {
		local.Close()
		return nil, err
	}
	return &Server{Server: srv, local: local}, nil
}

// routes serves the two webhooks and their rules to the registry (any
// caller when verifier is nil, in insecure mode), the webhooks to outside
// callers too (a kube-apiserver's webhook configurations; see package
// stagecaller), and the health endpoints to anyone, so probes work.
func routes(l *Local, verifier *identity.Verifier, outside stagecaller.Middleware) http.Handler {
	asserted := func(h http.Handler) http.Handler { return h }
	if verifier != nil {
		asserted = identity.Require(verifier)
	}
	reviews := stagecaller.Accept(asserted, outside)
	mux := http.NewServeMux()
	mux.Handle("POST "+pkgadmission.MutatingPath, reviews(pkgadmission.NewAdmissionReviewHandler(l.Mutating())))
	mux.Handle("POST "+pkgadmission.ValidatingPath, reviews(pkgadmission.NewAdmissionReviewHandler(l.Validating())))
	// The rules say which requests the reviews are worth asking for; they
	// name the plugins' interests, so only the registry may read them.
	// Rules follow the webhook configurations, so each fetch gets them
	// as they are now.
	mux.Handle(pkgadmission.RulesPath, asserted(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pkgadmission.NewRulesHandler(l.Rules()).ServeHTTP(w, r)
	})))
	// The server span first, so that a panic's answer is in it too.
	return tracing.Handler(recovery.Middleware(nil)(health.Probes(nil, []health.Check{{Name: "informers-synced", Func: l.ready}})(apierror.ServeMux(mux))))
}

// Local is the plugins the server serves.
func (s *Server) Local() *Local { return s.local }

// Close stops the plugins' background work and informers, then serving
// (reviews in flight get serve.ShutdownTimeout to finish).
func (s *Server) Close() {
	// Background work first: handing back its Leases is a write through
	// the registry, which may ask this server, so it must still answer.
	s.local.Close()
	s.Server.Close()
}
