package authn

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	pkgauthn "github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/pkg/stagecaller"
	"github.com/kubesplit/kubesplit/pkg/tracing"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
	"github.com/kubesplit/kubesplit/services/authn/internal/serviceaccount"
)

// handlers are what the routes serve, built by Start.
type handlers struct {
	verifier *identity.Verifier
	// outside checks callers of the TokenReview endpoint from outside
	// kubesplit (a kube-apiserver); nil takes none.
	outside       stagecaller.Middleware
	authenticator pkgauthn.Authenticator
	tokenReview   http.Handler
	tokenRequest  http.Handler
	oidcDocs      http.Handler
	revisions     http.Handler
	ready         []health.Check
}

// newRouter serves the open endpoints (health, the issuer's discovery
// documents, which relying parties fetch without credentials) and puts
// every API path behind the aggregator's assertion; the TokenReview
// endpoint takes outside callers too (see package stagecaller).
func newRouter(h handlers) http.Handler {
	api := http.NewServeMux()
	api.Handle(pkgauthn.TokenReviewPath, h.tokenReview)
	api.HandleFunc(SelfSubjectReviewPath, selfSubjectReviewHandler)
	api.Handle("GET "+revision.Path, h.revisions)
	api.Handle("/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", h.tokenRequest)
	api.Handle("GET /apis", apidiscovery.Serve(http.HandlerFunc(groupListHandler), aggregatedGroups))
	api.HandleFunc("GET /apis/authentication.k8s.io", groupHandler)
	api.HandleFunc("GET /apis/authentication.k8s.io/v1", resourceListHandler)

	open := http.NewServeMux()
	open.Handle(oidc.DiscoveryPath, h.oidcDocs)
	open.Handle(serviceaccount.JWKSPath, h.oidcDocs)
	asserted := identity.Require(h.verifier)
	open.Handle("/", asserted(apierror.ServeMux(api)))
	open.Handle("POST "+pkgauthn.TokenReviewPath, stagecaller.Accept(asserted, h.outside)(h.tokenReview))
	// The server span first, so that a panic's answer is in it too.
	return tracing.Handler(recovery.Middleware(nil)(health.Probes(nil, h.ready)(open)))
}
