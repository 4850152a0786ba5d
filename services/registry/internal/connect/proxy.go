package connect

import (
	"context"
	"net/http"
	"net/url"

	"k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/pod"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// proxyPod proxies any method to the pod named as kube names it
// ("name", "name:port", "https:name:port"), the path after /proxy
// appended, as kube's pod ProxyREST.
func (h *Handler) proxyPod(ctx context.Context, w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	opts := &api.PodProxyOptions{}
	if err := decodeOptions(r.URL.Query(), info, opts, true); err != nil {
		return err
	}
	location, transport, err := pod.ResourceLocation(ctx, podGetter{pods: h.cfg.Pods, namespace: info.Namespace}, h.proxyTransport, info.Name)
	if err != nil {
		return err
	}
	location.Path = net.JoinPreservingTrailingSlash(location.Path, opts.Path)
	upgradeProxy(location, transport, true, false).ServeHTTP(hijackable{w}, outgoing(r))
	return nil
}

// proxyNode proxies any method to a node's kubelet, or to another port of
// the node, as kube's node ProxyREST.
func (h *Handler) proxyNode(ctx context.Context, w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	opts := &api.NodeProxyOptions{}
	if err := decodeOptions(r.URL.Query(), info, opts, true); err != nil {
		return err
	}
	location, transport, err := node.ResourceLocation(nil, h.cfg.Kubelets, h.proxyTransport, ctx, info.Name)
	if err != nil {
		return err
	}
	location.Path = net.JoinPreservingTrailingSlash(location.Path, opts.Path)
	upgradeProxy(location, transport, true, false).ServeHTTP(hijackable{w}, outgoing(r))
	return nil
}

// upgradeProxy is kube's upgrade-aware proxy to location: it passes an
// upgraded connection (SPDY, WebSocket) through, and with wrap rewrites
// the links of an HTML answer to go through the API, as kube's proxy
// subresources do.
func upgradeProxy(location *url.URL, transport http.RoundTripper, wrap, upgradeRequired bool) *proxy.UpgradeAwareHandler {
	return proxy.NewUpgradeAwareHandler(location, transport, wrap, upgradeRequired, responder{})
}

// outgoing is the request as it leaves for a kubelet or pod: without the
// aggregator's identity assertion, which speaks for the caller to the
// registry and must reach nobody else.
func outgoing(r *http.Request) *http.Request {
	out := r.Clone(r.Context())
	identity.StripIdentityHeaders(out.Header)
	out.Header.Del("Authorization")
	return out
}

func writeStatus(w http.ResponseWriter, err error) { apierror.Write(w, err) }
