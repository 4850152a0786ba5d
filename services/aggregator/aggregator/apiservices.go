package aggregator

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/apiservice"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// publishRetry is how soon a failed publication of the front-proxy trust
// is tried again: at start-up the registry may not serve kube-system yet,
// and the stack is ready only once it is published.
const publishRetry = 200 * time.Millisecond

// startAPIServices serves the APIServices stored in the registry through
// routes, and publishes how their backends can trust the aggregator, in
// the background until ctx is done; published hears how each publication
// went. Both talk to the registry as the aggregator itself, with restCfg.
func startAPIServices(ctx context.Context, cfg Config, fp *frontProxy, restCfg *rest.Config, routes *discovery.Handler,
	published *publication) (*apiservice.Controller, error) {
	dyn, err := dynamic.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	auth, err := publishedAuthentication(cfg, fp)
	if err != nil {
		return nil, err
	}
	ctrl, err := apiservice.New(apiservice.Config{Client: dyn, Routes: routes, ProxyClientCert: &fp.cert, Log: cfg.Log})
	if err != nil {
		return nil, err
	}
	go ctrl.Run(ctx)
	go apiservice.PublishAuthentication(ctx, kube, auth, publishRetry, func(err error) {
		published.report(err)
		if err != nil {
			cfg.Log.Warn("extension-apiserver-authentication not published yet", "err", err)
		}
	})
	return ctrl, nil
}

// publishedAuthentication is what extension servers are told to trust.
func publishedAuthentication(cfg Config, fp *frontProxy) (apiservice.Authentication, error) {
	auth := apiservice.Authentication{RequestHeaderCA: fp.caPEM, AllowedNames: fp.allowedNames}
	if cfg.ClientCAFile != "" {
		ca, err := os.ReadFile(cfg.ClientCAFile)
		if err != nil {
			return auth, fmt.Errorf("%w: client CA: %w", ErrInvalidConfig, err)
		}
		auth.ClientCA = ca
	}
	if err := auth.Check(); err != nil {
		return auth, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return auth, nil
}

// registryRESTConfig is client-go's configuration for the registry
// upstream, every request signed as the aggregator itself.
func registryRESTConfig(registry *upstream.Upstream, signer *identity.Signer) *rest.Config {
	return &rest.Config{
		Host:      upstreamPlaceholder(registry.Name()),
		Transport: signer.Transport(&poolTransport{up: registry}, selfUser, registry.Name()),
		QPS:       50, Burst: 100,
		UserAgent: "kubesplit-aggregator",
	}
}
