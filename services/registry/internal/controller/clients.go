package controller

import (
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Client rate limits used when the Config leaves them at zero: high enough
// that emptying a namespace or collecting a large tree is not throttled to
// client-go's 5 requests a second, yet bounded.
const (
	defaultQPS   = 50
	defaultBurst = 100
)

// clients are what a controller talks to the API with.
type clients struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
}

// newClients builds a controller's clients, named in the user agent so the
// registry's logs and audit say which controller made a request.
func newClients(base *rest.Config, controller string) (clients, error) {
	cfg := restFor(base, "kubesplit-controller/"+controller)
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return clients{}, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return clients{}, err
	}
	return clients{kube: kube, dynamic: dyn}, nil
}

// leaderClient is used for leases and the lease namespace only. Its
// requests time out, unlike the controllers' (whose watches must not), so a
// hung renewal cannot hold a lease past its deadline.
func leaderClient(c Config) (kubernetes.Interface, error) {
	cfg := restFor(c.REST, "kubesplit-controller/leader-election")
	cfg.Timeout = c.RenewDeadline
	return kubernetes.NewForConfig(cfg)
}

// restFor copies base with a user agent and default rate limits.
func restFor(base *rest.Config, userAgent string) *rest.Config {
	cfg := rest.CopyConfig(base)
	cfg.UserAgent = userAgent
	if cfg.QPS == 0 {
		cfg.QPS = defaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = defaultBurst
	}
	return cfg
}
