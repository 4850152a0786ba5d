package authz

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/services/authz/internal/rbac"
)

// newRBACMode is kube's RBAC, evaluated by the rbac engine over the RBAC
// objects the service watches through the API. It answers with an
// evaluation error (never an allow) until the first policy is loaded, and
// adds the rbac-synced readiness check that tells when that happened. Each
// policy loaded is published as its share of revs.
func newRBACMode(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error) {
	if cfg.RESTConfig == nil {
		return mode{}, fmt.Errorf("%w: the RBAC mode needs a way to reach the API (a kubeconfig)", ErrInvalidConfig)
	}
	engine, err := rbac.New(rbac.Config{})
	if err != nil {
		return mode{}, err
	}
	client, factory, err := newInformerFactory(cfg)
	if err != nil {
		return mode{}, err
	}
	s, err := newPolicySync(engine, factory, cfg.RBACDebounce, cfg.Log)
	if err != nil {
		return mode{}, err
	}
	s.onLoad = revs.source().Set
	s.start(ctx, client)
	return mode{
		authorizer: engine,
		checks:     []health.Check{{Name: "rbac-synced", Func: s.ready}},
		rules: func(user authenticationv1.UserInfo, namespace string) ruleSet {
			res, nonRes := engine.Rules(user, namespace)
			return ruleSet{resource: res, nonResource: nonRes}
		},
	}, nil
}

// newInformerFactory is a factory of informers on the API, reached as
// cfg.RESTConfig says, for a mode that follows objects there, and its
// client.
func newInformerFactory(cfg Config) (kubernetes.Interface, informers.SharedInformerFactory, error) {
	client, err := kubernetes.NewForConfig(rest.CopyConfig(cfg.RESTConfig))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	// No periodic resync: the policy only changes when an object does.
	return client, informers.NewSharedInformerFactory(client, 0), nil
}
