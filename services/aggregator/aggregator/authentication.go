package aggregator

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// newAuthenticator is the union of the local token file and the authn
// stage, in that order: the stage in process when the composition is
// fused (Config.Authenticator), else the authn upstream. Only the remote
// authenticator is cached: the token file is an in-memory lookup already.
// The cache is dropped on every revision revs reports (a ServiceAccount
// deleted) and bypassed while revs cannot vouch for it.
func newAuthenticator(cfg Config, authnClient *http.Client, revs *revisionFollower, onCacheLookup func(context.Context, bool)) (authn.Authenticator, error) {
	var list []authn.Authenticator
	if cfg.TokenAuthFile != "" {
		tf, err := authn.NewTokenFile(cfg.TokenAuthFile)
		if err != nil {
			return nil, err
		}
		list = append(list, tf)
	}
	switch {
	case cfg.Authenticator != nil:
		list = append(list, cfg.Authenticator)
	case authnClient != nil:
		if revs == nil {
			return nil, fmt.Errorf("%w: the authn upstream has no revision follower", ErrInvalidConfig)
		}
		wc, err := authn.NewWebhookClient(authn.WebhookConfig{Config: webhook.Config{
			URL:        upstreamPlaceholder(authnUpstream) + authn.TokenReviewPath,
			HTTPClient: authnClient,
		}})
		if err != nil {
			return nil, err
		}
		cached, err := authn.NewCached(wc, authn.CacheConfig{
			TTL: cfg.AuthenticationCacheTTL, MaxEntries: 10000, OnLookup: onCacheLookup,
		})
		if err != nil {
			return nil, err
		}
		revs.onRevision = func(int64) { cached.Invalidate() }
		list = append(list, &gatedAuthenticator{cached: cached, direct: wc, trusted: revs.trusted})
	}
	return authn.Union(list...), nil
}
