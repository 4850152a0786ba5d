package aggregator

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/tracing"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/audit"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/filters"
)

// stages are the parts the chain is assembled from.
type stages struct {
	authenticator authn.Authenticator
	authorizer    authz.Authorizer
	probes        func(http.Handler) http.Handler // the health endpoints
	api           http.Handler                    // routing to the upstreams
	audit         audit.Filters
	metrics       *measurements
	// flowControl is API Priority and Fairness; nil when it is off, and
	// the max-inflight limits apply instead.
	flowControl utilflowcontrol.Interface
}

// buildChain is the aggregator's handler chain, listed in the order a
// request runs through it (DESIGN.md, "One request").
func buildChain(cfg Config, s stages) (http.Handler, error) {
	limiter, fairness, err := concurrencyLimits(cfg, s.flowControl)
	if err != nil {
		return nil, err
	}
	deadline, err := filters.WithRequestDeadline(cfg.RequestTimeout)
	if err != nil {
		return nil, err
	}
	// The largest body a backend takes, and the proxies hold to sign: a
	// larger one is refused before anything reads it.
	bodyLimit, err := filters.WithRequestBodyLimit(identity.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	authorize, err := authz.WithAuthorization(s.authorizer, authz.MiddlewareConfig{
		OnDecision: func(r *http.Request, d authz.Decision, reason string) {
			annotateDecision(r, d, reason)
			s.metrics.authorized(d)
		}})
	if err != nil {
		return nil, err
	}
	// chi runs the first listed first: the list reads in the order a
	// request meets it, unlike kube's DefaultBuildHandlerChain, which
	// wraps the innermost first.
	return chi.Chain(
		tracing.Handler, // the server span: every later step is inside it
		recovery.Middleware(cfg.Log),
		filters.WithRequestID(),
		filters.WithMaxInFlight(limiter),
		deadline,
		filters.WithRequestInfo(),
		s.metrics.requests.Middleware,
		bodyLimit,
		s.audit.Around,
		s.probes,
		filters.WithAuthentication(filters.AuthenticationConfig{Authenticator: s.authenticator,
			Anonymous: cfg.AnonymousAuth, ClientCertificates: cfg.ClientCAFile != "", OnResult: s.metrics.authenticated}),
		s.audit.AfterAuthentication,
		filters.WithImpersonation(s.authorizer),
		s.audit.AfterImpersonation,
		fairness,
		filters.WithTraceAttributes,
		authorize,
		observe.Endpoints(s.metrics.gatherer(), nil), // /metrics and /debug/pprof, once authorized
	).Handler(s.api), nil
}

// concurrencyLimits are the chain's two ways to bound the requests served
// at once, one of them on: kube's max-inflight limits, counted before
// authentication, or API Priority and Fairness, which needs the user and
// so runs after impersonation (where kube runs it). The other is a pass.
func concurrencyLimits(cfg Config, fc utilflowcontrol.Interface) (*filters.InFlightLimiter, func(http.Handler) http.Handler, error) {
	if fc != nil {
		return nil, filters.WithPriorityAndFairness(filters.FairnessConfig{Controller: fc, QueueWait: cfg.RequestTimeout / 4}), nil
	}
	limiter, err := filters.NewInFlightLimiter(filters.MaxInFlightConfig{
		MaxRequests: cfg.MaxRequestsInflight, MaxMutating: cfg.MaxMutatingRequestsInflight,
	})
	pass := func(next http.Handler) http.Handler { return next }
	return limiter, pass, err
}

// annotateDecision puts the authorization decision on the request's audit
// event, with kube's annotation keys.
func annotateDecision(r *http.Request, d authz.Decision, reason string) {
	value := "forbid"
	if d == authz.DecisionAllow {
		value = "allow"
	}
	audit.Annotate(r.Context(), "authorization.k8s.io/decision", value)
	if reason != "" {
		audit.Annotate(r.Context(), "authorization.k8s.io/reason", reason)
	}
}
