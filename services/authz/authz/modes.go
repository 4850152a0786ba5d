package authz

import (
	"context"
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// mode is one built engine: what it answers with, and the readiness
// checks it needs before its answers mean anything.
type mode struct {
	authorizer authz.Authorizer
	checks     []health.Check
	// rules lists what the mode allows a user, for
	// SelfSubjectRulesReviews; nil when it cannot tell.
	rules rulesFunc
}

// engines is the built chain: what answers reviews, what tells when it is
// ready, and what lists a user's rules.
type engines struct {
	authorizer authz.Authorizer
	checks     []health.Check
	rules      rulesFunc
}

// newModeFunc builds a mode. ctx is the service's lifetime: a mode that
// runs in the background (RBAC's informers, a policy file's watch) stops
// when it ends. A mode whose policy changes takes a source of revs and
// tells it of each new policy.
type newModeFunc func(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error)

// authorizationModes is the one table of authorization modes, by name.
var authorizationModes = map[string]newModeFunc{
	authz.ModeRBAC: newRBACMode,
	authz.ModeAlwaysAllow: func(context.Context, Config, *policyRevisions) (mode, error) {
		return mode{authorizer: authz.AlwaysAllow(), rules: allRules}, nil
	},
	authz.ModeAlwaysDeny: func(context.Context, Config, *policyRevisions) (mode, error) {
		return mode{authorizer: authz.AlwaysDeny(), rules: noRules}, nil
	},
	authz.ModeWebhook: newWebhookMode,
	authz.ModeNode:    newNodeMode,
	authz.ModeABAC:    newABACMode,
	authz.ModeCasbin:  newCasbinMode,
}

// step is one authorizer of the chain: what the errors call it, and how
// it is built.
type step struct {
	name  string
	build newModeFunc
}

// buildChain builds the configured modes, in the order given, into one
// chain, and gathers their readiness checks and rule listers. A name that
// is unknown or given twice is refused before anything starts. The modes
// publish their policy revisions, summed, on feed, and the chain's answers
// carry that sum.
func buildChain(ctx context.Context, cfg Config, feed *revision.Feed) (engines, error) {
	steps, err := chainSteps(cfg)
	if err != nil {
		return engines{}, err
	}
	revs := newPolicyRevisions(feed)
	var (
		list   []authz.Authorizer
		checks []health.Check
		rules  []rulesFunc
	)
	for _, s := range steps {
		m, err := s.build(ctx, cfg, revs)
		if err != nil {
			return engines{}, fmt.Errorf("authorization mode %q: %w", s.name, err)
		}
		list = append(list, m.authorizer)
		checks = append(checks, m.checks...)
		rules = append(rules, m.rules)
	}
	chain, err := authz.Chain(list...)
	if err != nil {
		return engines{}, err
	}
	return engines{authorizer: stamped(chain, revs), checks: checks, rules: unionRules(rules)}, nil
}

// chainSteps is the chain --authorization-config names when given, else
// the one --authorization-mode names; kube takes only one of the two.
func chainSteps(cfg Config) ([]step, error) {
	if cfg.AuthorizationConfigFile != "" {
		if len(cfg.AuthorizationModes) > 0 {
			return nil, fmt.Errorf("%w: an authorization config and authorization modes are mutually exclusive", ErrInvalidConfig)
		}
		return []step{{name: "--authorization-config", build: newConfigMode(cfg.AuthorizationConfigFile)}}, nil
	}
	if err := validateModes(cfg.AuthorizationModes); err != nil {
		return nil, err
	}
	steps := make([]step, 0, len(cfg.AuthorizationModes))
	for _, name := range cfg.AuthorizationModes {
		steps = append(steps, step{name: name, build: authorizationModes[name]})
	}
	return steps, nil
}

// validateModes checks the names as kube does: known, and none twice.
func validateModes(modes []string) error {
	if err := authz.CheckModes(modes, authorizationModes); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}

// newWebhookMode asks a remote SubjectAccessReview webhook.
func newWebhookMode(_ context.Context, cfg Config, _ *policyRevisions) (mode, error) {
	if cfg.WebhookURL == "" {
		return mode{}, fmt.Errorf("%w: the Webhook mode needs a webhook URL", ErrInvalidConfig)
	}
	wc, err := authz.NewWebhookClient(authz.WebhookConfig{URL: cfg.WebhookURL})
	if err != nil {
		return mode{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return mode{authorizer: wc}, nil
}
