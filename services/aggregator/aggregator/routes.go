package aggregator

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// newProxies returns a proxy per upstream whose requests carry the
// authenticated (or impersonated) user's signed identity, with the
// upstream's name as audience. The assertion binds a digest of the body,
// so bodies are held whole (up to the most any backend takes) before
// they are signed and sent.
func newProxies(ups map[string]*upstream.Upstream, signer *identity.Signer, cfg Config, stages *metrics.Stages) (map[string]discovery.Backend, error) {
	backends := map[string]discovery.Backend{}
	for name, u := range ups {
		p, err := proxy.New(proxy.Config{Upstream: u, Decorate: signIdentity(signer, name), Log: cfg.Log,
			Instrument: func(rt http.RoundTripper) http.RoundTripper { return stages.Transport(name, rt) },
			BufferBody: identity.MaxBodyBytes})
		if err != nil {
			return nil, err
		}
		backends[name] = p
	}
	return backends, nil
}

// signIdentity is a proxy's Decorate hook for upstream audience.
func signIdentity(signer *identity.Signer, audience string) func(*http.Request) error {
	return func(r *http.Request) error {
		u, ok := request.UserFrom(r.Context())
		if !ok {
			return errors.New("no authenticated user on the request")
		}
		return signer.SetHeader(r, u, audience)
	}
}

// newAPIHandler routes what passed authorization: API paths through the
// table to their upstream (and the merged /apis), /version and /openapi
// to the registry, which serves them; everything else is 404. The
// discovery handler is returned too, for APIServices to be added to.
func newAPIHandler(backends map[string]discovery.Backend) (http.Handler, *discovery.Handler, error) {
	table, err := discovery.NewTable(registryUpstream, configuredRules(backends)...)
	if err != nil {
		return nil, nil, err
	}
	disc, err := discovery.New(discovery.Config{
		Table: table, Backends: backends,
		// The merged /apis is shared by every caller, so it is fetched as
		// the aggregator, not as whoever happened to trigger the fetch.
		FetchContext: func(ctx context.Context) context.Context {
			return request.WithUser(ctx, selfUser)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	registry := backends[registryUpstream]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/version" || p == "/openapi" || strings.HasPrefix(p, "/openapi/") {
			registry.ServeHTTP(w, r)
			return
		}
		disc.ServeHTTP(w, r)
	}), disc, nil
}

// configuredRules are the default routes whose upstream is configured:
// without an authn upstream, authentication.k8s.io falls to the registry
// like any unknown group rather than to nobody.
func configuredRules(backends map[string]discovery.Backend) []discovery.Rule {
	var rules []discovery.Rule
	for _, r := range discovery.DefaultRules() {
		if backends[r.Upstream] != nil {
			rules = append(rules, r)
		}
	}
	return rules
}
