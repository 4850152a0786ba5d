package observe

import (
	"errors"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// CacheTTL is how long Guard reuses the API's answers, allows and denials
// alike: kube's delegating authenticator and authorizer default.
const CacheTTL = 10 * time.Second

// Delegate is the API a backend asks about its scrapers: the aggregator,
// reached with the backend's own credentials.
type Delegate struct {
	// URL is the API's base URL; empty means no API to ask, and Guard
	// refuses everyone.
	URL string
	// Client carries the backend's TLS configuration and credentials.
	Client *http.Client
}

// Guard returns middleware that lets a request through only when its
// bearer token is valid (TokenReview) and its user may use the
// non-resource URL it asks for (SubjectAccessReview), as kube's components
// authorize /metrics. A bad token gets 401, a user without access 403, an
// API that cannot answer 503 with Retry-After: never a pass.
func Guard(d Delegate) (func(http.Handler) http.Handler, error) {
	if d.URL == "" {
		return refuseAll, nil
	}
	tokens, access, err := d.Reviewers()
	if err != nil {
		return nil, err
	}
	authorize, err := Authorize(access)
	if err != nil {
		return nil, err
	}
	authenticate := authn.WithAuthentication(tokens, authn.Options{})
	return func(next http.Handler) http.Handler { return authenticate(authorize(next)) }, nil
}

// Reviewers are the API's TokenReview and SubjectAccessReview, asked with
// the backend's credentials, each answer (allow or deny) kept CacheTTL.
func (d Delegate) Reviewers() (authn.Authenticator, authz.Authorizer, error) {
	base := strings.TrimSuffix(d.URL, "/")
	tokens, err := authn.NewWebhookClient(authn.WebhookConfig{Config: webhook.Config{URL: base + authn.TokenReviewPath, HTTPClient: d.Client}})
	if err != nil {
		return nil, nil, err
	}
	cachedTokens, err := authn.NewCached(tokens, authn.CacheConfig{TTL: CacheTTL, NegativeTTL: CacheTTL, MaxEntries: 1000})
	if err != nil {
		return nil, nil, err
	}
	access, err := authz.NewWebhookClient(authz.WebhookConfig{URL: base + authz.SubjectAccessReviewPath, HTTPClient: d.Client})
	if err != nil {
		return nil, nil, err
	}
	cachedAccess, err := authz.NewCached(access, authz.CacheConfig{AllowTTL: CacheTTL, DenyTTL: CacheTTL, MaxEntries: 1000})
	if err != nil {
		return nil, nil, err
	}
	return cachedTokens, cachedAccess, nil
}

// Authorize is middleware asking access whether the user authentication
// put in the context (request.UserFrom) may make the request: its verb and
// resource, or its path when it names none.
func Authorize(access authz.Authorizer) (func(http.Handler) http.Handler, error) {
	return authz.WithAuthorization(access, authz.MiddlewareConfig{})
}

// refuseAll is the guard of a backend given no API to ask: nobody can be
// checked, so nobody gets in.
func refuseAll(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apierror.Write(w, apierrors.NewForbidden(schema.GroupResource{}, "",
			errors.New("this server was given no --kubeconfig to check who may read "+r.URL.Path)))
	})
}
