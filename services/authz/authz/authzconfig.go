package authz

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	apiserverapi "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/load"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/services/authz/internal/filewatch"
	"github.com/kubesplit/kubesplit/services/authz/internal/kubeauthz"
)

// newConfigMode is the chain kube's structured authorization
// configuration names (--authorization-config,
// apiserver.config.k8s.io AuthorizationConfiguration), as one mode. The
// file is loaded and validated by k8s.io/apiserver's own code, as
// kube-apiserver does, with kubesplit's modes as the known types (Casbin
// included) and Webhook the one that may repeat; a non-webhook authorizer
// must be named as kube requires, its type in lower case. Each Webhook
// entry is kube's webhook authorizer with its own kubeconfig, timeout,
// failure policy, answer caching and CEL match conditions; the other types
// are the modes of the same name, configured by their own flags and built
// once.
//
// As kube-apiserver does, the file is reloaded when it changes: the
// webhooks are built anew and the chain reordered as it says, while the
// other types must stay those it started with. A version that does not
// load changes nothing; one that does moves the revision, so the
// aggregator drops the answers of the old chain.
func newConfigMode(path string) newModeFunc {
	return func(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error) {
		c := &configuredChain{path: path}
		source := revs.source()
		load := func(contents [][]byte) error { return c.load(ctx, cfg, revs, contents[0]) }
		if err := filewatch.Watch(ctx, []string{path}, cfg.PolicyReloadInterval, load, source.Bump, cfg.Log); err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				err = fmt.Errorf("%w: %w", ErrInvalidConfig, err)
			}
			return mode{}, fmt.Errorf("authorization config %s: %w", path, err)
		}
		source.Bump()
		var checks []health.Check
		for _, m := range c.modes {
			checks = append(checks, m.checks...)
		}
		return mode{
			authorizer: authz.AuthorizerFunc(func(ctx context.Context, a authz.Attributes) (authz.Result, error) {
				return c.current.Load().authorizer.Authorize(ctx, a)
			}),
			checks: checks,
			rules: func(user authenticationv1.UserInfo, namespace string) ruleSet {
				return c.current.Load().rules(user, namespace)
			},
		}, nil
	}
}

// configuredChain is the chain of the configuration file in force.
type configuredChain struct {
	path string
	// modes are the non-webhook modes, by type, built at the first load;
	// only the loads (one goroutine) use it.
	modes   map[string]mode
	current atomic.Pointer[engines]
}

// load makes the chain of one version of the file and puts it in force.
func (c *configuredChain) load(ctx context.Context, cfg Config, revs *policyRevisions, data []byte) error {
	conf, compiler, err := parseAuthorizationConfig(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if err := c.buildModes(ctx, cfg, revs, conf); err != nil {
		return err
	}
	var (
		list  []authz.Authorizer
		rules []rulesFunc
	)
	for _, a := range conf.Authorizers {
		m, ok := c.modes[string(a.Type)]
		if string(a.Type) == authz.ModeWebhook {
			if m, err = newConfiguredWebhook(a.Name, *a.Webhook, compiler); err != nil {
				return fmt.Errorf("webhook %s: %w", a.Name, err)
			}
		} else if !ok {
			return fmt.Errorf("%w: authorizer type %s was not configured at start; its authorizers may not change while authz runs", ErrInvalidConfig, a.Type)
		}
		list = append(list, m.authorizer)
		rules = append(rules, m.rules)
	}
	chain, err := authz.Chain(list...)
	if err != nil {
		return err
	}
	c.current.Store(&engines{authorizer: chain, rules: unionRules(rules)})
	return nil
}

// buildModes builds the non-webhook modes at the first load; at a later
// one it checks that the same types are named, as kube-apiserver requires.
func (c *configuredChain) buildModes(ctx context.Context, cfg Config, revs *policyRevisions, conf *apiserverapi.AuthorizationConfiguration) error {
	types := sets.New[string]()
	for _, a := range conf.Authorizers {
		if string(a.Type) != authz.ModeWebhook {
			types.Insert(string(a.Type))
		}
	}
	if c.modes != nil {
		if have := sets.KeySet(c.modes); !have.Equal(types) {
			return fmt.Errorf("%w: the authorizers other than webhooks must stay %v", ErrInvalidConfig, sets.List(have))
		}
		return nil
	}
	modes := map[string]mode{}
	for _, a := range conf.Authorizers {
		name := string(a.Type)
		if name == authz.ModeWebhook || modes[name].authorizer != nil {
			continue
		}
		m, err := authorizationModes[name](ctx, cfg, revs)
		if err != nil {
			return fmt.Errorf("authorization mode %q: %w", name, err)
		}
		modes[name] = m
	}
	c.modes = modes
	return nil
}

// parseAuthorizationConfig loads and validates one version of the file,
// and returns the CEL compiler its match conditions were checked with.
func parseAuthorizationConfig(data []byte) (*apiserverapi.AuthorizationConfiguration, authorizationcel.Compiler, error) {
	c, err := load.LoadFromData(data)
	if err != nil {
		return nil, nil, err
	}
	compiler := authorizationcel.NewDefaultCompiler()
	known := sets.New(slices.Collect(maps.Keys(authorizationModes))...)
	if errs := validation.ValidateAuthorizationConfiguration(compiler, nil, c, known, sets.New(authz.ModeWebhook)); len(errs) > 0 {
		return nil, nil, errs.ToAggregate()
	}
	for _, a := range c.Authorizers {
		if want := strings.ToLower(string(a.Type)); string(a.Type) != authz.ModeWebhook && a.Name != want {
			return nil, nil, fmt.Errorf("authorizer of type %s must be named %s, not %s", a.Type, want, a.Name)
		}
	}
	return c, compiler, nil
}

// newConfiguredWebhook is one Webhook entry of the configuration: kube's
// webhook authorizer, built as kube-apiserver builds it.
func newConfiguredWebhook(name string, w apiserverapi.WebhookConfiguration, compiler authorizationcel.Compiler) (mode, error) {
	clientConfig, err := webhookClientConfig(w.ConnectionInfo)
	if err != nil {
		return mode{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if w.Timeout.Duration != 0 {
		clientConfig.Timeout = w.Timeout.Duration
	}
	onError, err := failurePolicy(w.FailurePolicy)
	if err != nil {
		return mode{}, err
	}
	authorizedTTL, unauthorizedTTL := w.AuthorizedTTL.Duration, w.UnauthorizedTTL.Duration
	if !w.CacheAuthorizedRequests {
		authorizedTTL = 0
	}
	if !w.CacheUnauthorizedRequests {
		unauthorizedTTL = 0
	}
	a, err := webhook.New(clientConfig, w.SubjectAccessReviewVersion, authorizedTTL, unauthorizedTTL,
		*webhook.DefaultRetryBackoff(), onError, w.MatchConditions, name,
		webhookmetrics.NoopAuthorizerMetrics{}, compiler)
	if err != nil {
		return mode{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	adapted := kubeauthz.Adapt(a)
	return mode{authorizer: adapted, rules: listedRules(adapted)}, nil
}

// webhookClientConfig is how a webhook is reached: its kubeconfig, or the
// pod's own service account.
func webhookClientConfig(c apiserverapi.WebhookConnectionInfo) (*rest.Config, error) {
	if c.Type == apiserverapi.AuthorizationWebhookConnectionInfoTypeKubeConfigFile && c.KubeConfigFile != nil {
		return webhookutil.LoadKubeconfig(*c.KubeConfigFile, nil)
	}
	return rest.InClusterConfig()
}

// failurePolicy is the decision a webhook that cannot be asked gives.
func failurePolicy(p string) (authorizer.Decision, error) {
	switch p {
	case apiserverapi.FailurePolicyNoOpinion:
		return authorizer.DecisionNoOpinion, nil
	case apiserverapi.FailurePolicyDeny:
		return authorizer.DecisionDeny, nil
	}
	return 0, fmt.Errorf("%w: unknown failurePolicy %q", ErrInvalidConfig, p)
}
