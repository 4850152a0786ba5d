// Package client builds the client-go configuration the load tool talks to
// the API server with.
package client

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Media types for Config's content types.
const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// RESTConfig loads the kubeconfig at path (empty: $KUBECONFIG or
// ~/.kube/config) and tunes it for load generation: client-go's rate limiter
// is switched off so that the tool, not the library, decides the request
// rate, and requests use the given content type ("json" or "protobuf").
func RESTConfig(path, contentType string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	// A negative QPS is client-go's way to build no token bucket at all,
	// which is stronger than a high limit: nothing can throttle or queue.
	cfg.QPS = -1
	cfg.Burst = 0
	cfg.RateLimiter = nil
	cfg.UserAgent = "kubesplit-load"
	switch contentType {
	case "protobuf":
		cfg.ContentType = mediaProtobuf
		// JSON as a fallback, because the API server answers some
		// resources (custom ones) only in JSON.
		cfg.AcceptContentTypes = mediaProtobuf + "," + mediaJSON
	case "json", "":
		cfg.ContentType = mediaJSON
		cfg.AcceptContentTypes = mediaJSON
	default:
		return nil, fmt.Errorf("unknown content type %q", contentType)
	}
	return cfg, nil
}
