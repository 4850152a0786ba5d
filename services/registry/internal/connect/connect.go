// Package connect serves the subresources kube-apiserver does not answer
// from storage but by reaching out: pods/log (a stream from the pod's
// kubelet), pods/exec, pods/attach and pods/portforward (an upgraded
// connection to the kubelet, WebSocket translated to SPDY as kube does),
// and pods/proxy, nodes/proxy and services/proxy (any method, proxied to
// the pod, the kubelet or one of the service's pods). Where kube's code is
// a library (the pod and node strategies' Location functions, the
// upgrade-aware proxy, the stream translator, the endpoint picker) it is
// used as it is; the serving around it is the registry's.
package connect

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/kubelet/client"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Config is what the subresources need.
type Config struct {
	// Pods and Nodes are the stores the pods and nodes are read from.
	Pods, Nodes *storage.Store
	// Services and EndpointSlices are read to find a services/proxy
	// request's endpoint.
	Services, EndpointSlices *storage.Store
	// PrimaryIPFamily is the family of the first service CIDR: a service
	// proxy prefers endpoints of that family, as kube's does.
	PrimaryIPFamily corev1.IPFamily
	// Kubelets finds a node's kubelet (see package kubelet).
	Kubelets client.ConnectionInfoGetter
	// Authorizer is asked whether the caller may "create" pods/exec,
	// attach or portforward when it asked with a GET (the WebSocket form):
	// kube 1.35+ checks that verb too (AuthorizePodWebsocketUpgradeCreatePermission),
	// so a policy written for SPDY's POST still holds. Nil refuses such
	// requests.
	Authorizer authz.Authorizer
}

// Handler serves the subresources.
type Handler struct {
	cfg Config
	// proxyTransport reaches pods, and nodes on ports other than the
	// kubelet's, as kube's proxy transport does: without verifying their
	// certificates, which nothing issues for a pod IP.
	proxyTransport http.RoundTripper
}

// New returns a Handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Pods == nil || cfg.Nodes == nil || cfg.Services == nil || cfg.EndpointSlices == nil || cfg.Kubelets == nil {
		return nil, errors.New("connect: pods, nodes, services, endpointslices and kubelets are required")
	}
	return &Handler{cfg: cfg, proxyTransport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // kube's proxy transport verifies no pod
		MaxIdleConnsPerHost: 25,
	}}, nil
}

// served are the subresources by resource, with the HTTP methods kube
// connects them for (its ConnectMethods).
var served = map[string]map[string][]string{
	"pods": {
		"log":         {http.MethodGet},
		"exec":        upgradeMethods,
		"attach":      upgradeMethods,
		"portforward": upgradeMethods,
		"proxy":       proxyMethods,
	},
	"nodes":    {"proxy": proxyMethods},
	"services": {"proxy": proxyMethods},
}

var (
	upgradeMethods = []string{http.MethodGet, http.MethodPost}
	proxyMethods   = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}
)

// Serves reports whether the handler answers a core resource's subresource.
func Serves(resource, subresource string) bool {
	_, ok := served[resource][subresource]
	return ok
}

// ServeHTTP answers a request for one of the subresources; info is what
// the path reads as.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	methods, ok := served[info.Resource][info.Subresource]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: info.Resource}, info.Name)
	}
	if !contains(methods, r.Method) {
		return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: info.Resource + "/" + info.Subresource}, r.Method)
	}
	if dryRun := r.URL.Query()["dryRun"]; len(dryRun) > 0 && info.Subresource != "log" {
		return apierrors.NewBadRequest("dryRun is not supported")
	}
	ctx := r.Context()
	switch {
	case info.Resource == "nodes":
		return h.proxyNode(ctx, w, r, info)
	case info.Resource == "services":
		return h.proxyService(ctx, w, r, info)
	case info.Subresource == "log":
		return h.log(ctx, w, r, info)
	case info.Subresource == "proxy":
		return h.proxyPod(ctx, w, r, info)
	}
	return h.stream(ctx, w, r, info)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
