package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/net"
	apiproxy "k8s.io/apiserver/pkg/util/proxy"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// proxyService proxies any method to one ready endpoint of a Service, as
// kube's service ProxyREST: the id names the service as "name",
// "name:port" or "scheme:name:port", the port by name or number.
func (h *Handler) proxyService(ctx context.Context, w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	opts := &api.ServiceProxyOptions{}
	if err := decodeOptions(r.URL.Query(), info, opts, true); err != nil {
		return err
	}
	location, err := h.serviceLocation(ctx, info.Namespace, info.Name)
	if err != nil {
		return err
	}
	location.Path = net.JoinPreservingTrailingSlash(location.Path, opts.Path)
	upgradeProxy(location, h.proxyTransport, true, false).ServeHTTP(hijackable{w}, outgoing(r))
	return nil
}

// serviceLocation picks the endpoint a service proxy request goes to, as
// kube's service REST ResourceLocation does (a method of its etcd-backed
// REST there, so written here against our stores): a port number is
// turned into the service port's name, and only endpoints that are pods
// of the namespace holding the endpoint's address are proxied to.
func (h *Handler) serviceLocation(ctx context.Context, namespace, id string) (*url.URL, error) {
	scheme, name, port, valid := net.SplitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid service request %q", id))
	}
	if number, err := strconv.ParseInt(port, 10, 64); err == nil {
		if port, err = h.servicePortName(ctx, namespace, name, number); err != nil {
			return nil, err
		}
	}
	slices, err := h.endpointSlices(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if len(slices) == 0 {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	pods := podGetter{pods: h.cfg.Pods, namespace: namespace}
	hostPort, err := apiproxy.RandomEndpoint(name, slices, port, h.cfg.PrimaryIPFamily, func(ep *discoveryv1.Endpoint) bool {
		return isPodAddress(ctx, pods, namespace, ep)
	})
	if err != nil {
		return nil, err
	}
	return &url.URL{Scheme: scheme, Host: hostPort}, nil
}

// servicePortName is the name of the service's port numbered number.
func (h *Handler) servicePortName(ctx context.Context, namespace, name string, number int64) (string, error) {
	obj, err := h.cfg.Services.Get(ctx, namespace, name, storage.ReadOptions{})
	if err != nil {
		return "", err
	}
	svc := &corev1.Service{}
	if err := json.Unmarshal(obj.JSON, svc); err != nil {
		return "", apierrors.NewInternalError(err)
	}
	for _, p := range svc.Spec.Ports {
		if int64(p.Port) == number {
			return p.Name, nil
		}
	}
	return "", apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", number, name))
}

// endpointSlices are the service's EndpointSlices, found by the label the
// EndpointSlice controller puts on them.
func (h *Handler) endpointSlices(ctx context.Context, namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
	sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: service})
	list, err := h.cfg.EndpointSlices.List(ctx, namespace, storage.ListOptions{Selector: storage.Selector{Label: sel}})
	if err != nil {
		return nil, err
	}
	defer list.Release()
	out := make([]*discoveryv1.EndpointSlice, 0, len(list.Items))
	for _, item := range list.Items {
		s := &discoveryv1.EndpointSlice{}
		if err := json.Unmarshal(item.JSON, s); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		out = append(out, s)
	}
	return out, nil
}

// isPodAddress reports whether an endpoint is a pod of the namespace whose
// IPs include the endpoint's address, so that a service proxy reaches only
// pods, never an address someone wrote into an EndpointSlice by hand.
func isPodAddress(ctx context.Context, pods podGetter, namespace string, ep *discoveryv1.Endpoint) bool {
	if ep.TargetRef == nil || ep.TargetRef.Namespace != namespace || len(ep.Addresses) == 0 {
		return false
	}
	obj, err := pods.Get(ctx, ep.TargetRef.Name, nil)
	if err != nil {
		return false
	}
	for _, ip := range obj.(*api.Pod).Status.PodIPs {
		if ip.IP == ep.Addresses[0] {
			return true
		}
	}
	return false
}
