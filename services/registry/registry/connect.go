package registry

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/services/registry/internal/connect"
	"github.com/kubesplit/kubesplit/services/registry/internal/kubelet"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// serveConnect has the handler serve the subresources that reach a
// kubelet or a pod (pods/log, exec, attach, portforward, proxy;
// nodes/proxy; services/proxy), finding kubelets as cfg.Kubelet says.
func (s *Server) serveConnect(cfg Config, az authz.Authorizer) error {
	ips, err := cfg.serviceIPs()
	if err != nil {
		return err
	}
	c := connect.Config{
		Pods:            s.store(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		Nodes:           s.store(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}),
		Services:        s.store(schema.GroupVersionResource{Version: "v1", Resource: "services"}),
		EndpointSlices:  s.store(schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}),
		PrimaryIPFamily: corev1.IPv4Protocol,
	}
	if ips.ServiceCIDRs[0].Addr().Is6() {
		c.PrimaryIPFamily = corev1.IPv6Protocol
	}
	kubelets, err := kubelet.New(cfg.Kubelet, connect.NodeGetter(c.Nodes))
	if err != nil {
		return err
	}
	c.Kubelets = kubelets
	// The create check of a WebSocket exec.
	c.Authorizer = az
	h, err := connect.New(c)
	if err != nil {
		return err
	}
	s.handler.SetConnect(h)
	return nil
}

// authorizer asks authz through the aggregator with the registry's own
// credentials, as /metrics does, whether a caller may do what a request
// implies beyond its own verb (a WebSocket exec's create; what an admission
// policy's params name). Nil without a RESTConfig: those checks then allow
// only system:masters.
func authorizer(cfg Config) (authz.Authorizer, error) {
	if cfg.RESTConfig == nil {
		return nil, nil
	}
	d, err := observe.DelegateTo(cfg.RESTConfig)
	if err != nil {
		return nil, err
	}
	return authz.NewWebhookClient(authz.WebhookConfig{URL: strings.TrimSuffix(d.URL, "/") + authz.SubjectAccessReviewPath, HTTPClient: d.Client})
}

// store is the built-in store of gvr.
func (s *Server) store(gvr schema.GroupVersionResource) *storage.Store {
	for _, st := range s.stores {
		if st.Info().GroupVersionResource() == gvr {
			return st
		}
	}
	return nil
}
