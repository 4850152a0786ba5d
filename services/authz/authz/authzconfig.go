package authz

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

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

	"github.com/kubesplit/kubesplit/services/authz/internal/kubeauthz"
)

// configSteps reads kube's structured authorization configuration
// (--authorization-config, apiserver.config.k8s.io AuthorizationConfiguration)
// into the chain it names. The file is loaded and validated by
// k8s.io/apiserver's own code, as kube-apiserver does, with kubesplit's
// modes as the known types (Casbin included) and Webhook the one that may
// repeat; a non-webhook authorizer must be named as kube requires, its
// type in lower case. Each Webhook entry is kube's webhook authorizer with
// its own kubeconfig, timeout, failure policy, answer caching and CEL
// match conditions; the other types are the modes of the same name,
// configured by their own flags. The file is read once, at start.
func configSteps(path string) ([]step, error) {
	c, compiler, err := loadAuthorizationConfig(path)
	if err != nil {
		return nil, fmt.Errorf("%w: authorization config %s: %w", ErrInvalidConfig, path, err)
	}
	steps := make([]step, 0, len(c.Authorizers))
	for _, a := range c.Authorizers {
		if string(a.Type) != ModeWebhook {
			steps = append(steps, step{name: string(a.Type), build: authorizationModes[string(a.Type)]})
			continue
		}
		name, w := a.Name, *a.Webhook
		steps = append(steps, step{name: "Webhook " + name, build: func(context.Context, Config, *policyRevisions) (mode, error) {
			return newConfiguredWebhook(name, w, compiler)
		}})
	}
	return steps, nil
}

// loadAuthorizationConfig loads and validates the file, and returns the
// CEL compiler its match conditions were checked with.
func loadAuthorizationConfig(path string) (*apiserverapi.AuthorizationConfiguration, authorizationcel.Compiler, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	c, err := load.LoadFromData(data)
	if err != nil {
		return nil, nil, err
	}
	compiler := authorizationcel.NewDefaultCompiler()
	known := sets.New(slices.Collect(maps.Keys(authorizationModes))...)
	if errs := validation.ValidateAuthorizationConfiguration(compiler, nil, c, known, sets.New(ModeWebhook)); len(errs) > 0 {
		return nil, nil, errs.ToAggregate()
	}
	for _, a := range c.Authorizers {
		if want := strings.ToLower(string(a.Type)); string(a.Type) != ModeWebhook && a.Name != want {
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
