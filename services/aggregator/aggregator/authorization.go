package aggregator

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// modeDeps is what a mode may need to build its authorizer.
type modeDeps struct {
	cfg Config
	// authzClient reaches the authz upstream; the URL's host is replaced
	// by a healthy endpoint's. Nil without an authz upstream.
	authzClient *http.Client
	// authzRevisions follows the authz upstream's policy revisions. Nil
	// without an authz upstream.
	authzRevisions *revisionFollower
	// onCacheLookup counts the answers of authz's cache.
	onCacheLookup func(ctx context.Context, hit bool)
}

// authorizationModes is the one table of authorization modes, by name.
var authorizationModes = map[string]func(modeDeps) (authz.Authorizer, error){
	authz.ModeAlwaysAllow: func(modeDeps) (authz.Authorizer, error) { return authz.AlwaysAllow(), nil },
	authz.ModeAlwaysDeny:  func(modeDeps) (authz.Authorizer, error) { return authz.AlwaysDeny(), nil },
	authz.ModeWebhook:     newWebhookAuthorizer,
}

// newWebhookAuthorizer asks the authz stage: in process when the
// composition is fused (Config.Authorizer), else the authz upstream, with
// its answers cached:
// only the remote mode is cached, the built-in ones answer faster than a
// cache lookup. Every policy revision authz pushes drops the answers
// computed before it; while the pushes cannot be trusted to arrive, the
// cache is bypassed.
func newWebhookAuthorizer(d modeDeps) (authz.Authorizer, error) {
	if d.cfg.Authorizer != nil {
		return d.cfg.Authorizer, nil
	}
	if d.authzClient == nil || d.authzRevisions == nil {
		return nil, fmt.Errorf("%w: authorization mode %q needs an authz upstream", ErrInvalidConfig, authz.ModeWebhook)
	}
	wc, err := authz.NewWebhookClient(authz.WebhookConfig{
		URL:        upstreamPlaceholder(authzUpstream) + authz.SubjectAccessReviewPath,
		HTTPClient: d.authzClient,
	})
	if err != nil {
		return nil, err
	}
	cached, err := authz.NewCached(wc, authz.CacheConfig{
		AllowTTL: d.cfg.AuthorizationCacheTTL, DenyTTL: d.cfg.AuthorizationCacheTTL, MaxEntries: 10000,
		OnLookup: d.onCacheLookup,
	})
	if err != nil {
		return nil, err
	}
	d.authzRevisions.onRevision = cached.Follow
	return &gatedAuthorizer{cached: cached, direct: wc, trusted: d.authzRevisions.trusted}, nil
}

// newAuthorizer is the chain of DESIGN.md: system:masters allowed without
// asking anyone, so that authz can sync its own policy through the
// aggregator before it is ready, then the configured modes in order.
func newAuthorizer(d modeDeps) (authz.Authorizer, error) {
	list := []authz.Authorizer{authz.SystemMasters()}
	for _, name := range d.cfg.AuthorizationMode {
		newMode, ok := authorizationModes[name]
		if !ok {
			return nil, fmt.Errorf("%w: unknown authorization mode %q", ErrInvalidConfig, name)
		}
		a, err := newMode(d)
		if err != nil {
			return nil, err
		}
		list = append(list, a)
	}
	return authz.Chain(list...)
}
