package connect

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/proxy"
	translator "k8s.io/apiserver/pkg/util/proxy"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/kubelet/client"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/streaming/pkg/httpstream/wsstream"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// extendWebSocketsToKubelet is the feature a node declares when its
// kubelet speaks WebSocket itself; other kubelets get SPDY, translated
// from the client's WebSocket here, as kube does.
const extendWebSocketsToKubelet = "ExtendWebSocketsToKubelet"

// stream connects pods/exec, attach and portforward to the pod's kubelet,
// as kube's ExecREST, AttachREST and PortForwardREST do.
func (h *Handler) stream(ctx context.Context, w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	if err := h.authorizeCreate(ctx, info); err != nil {
		return err
	}
	pods := podGetter{pods: h.cfg.Pods, namespace: info.Namespace}
	var handler http.Handler
	switch info.Subresource {
	case "exec":
		opts := &api.PodExecOptions{}
		if err := decodeOptions(r.URL.Query(), info, opts, false); err != nil {
			return err
		}
		location, conn, err := pod.ExecLocation(ctx, pods, h.cfg.Kubelets, info.Name, opts)
		if err != nil {
			return err
		}
		handler = remoteCommand(location, conn, translator.Options{Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Tty: opts.TTY})
	case "attach":
		opts := &api.PodAttachOptions{}
		if err := decodeOptions(r.URL.Query(), info, opts, false); err != nil {
			return err
		}
		location, conn, err := pod.AttachLocation(ctx, pods, h.cfg.Kubelets, info.Name, opts)
		if err != nil {
			return err
		}
		handler = remoteCommand(location, conn, translator.Options{Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Tty: opts.TTY})
	default:
		opts := &api.PodPortForwardOptions{}
		if err := decodeOptions(r.URL.Query(), info, opts, false); err != nil {
			return err
		}
		location, conn, err := pod.PortForwardLocation(ctx, pods, h.cfg.Kubelets, info.Name, opts)
		if err != nil {
			return err
		}
		upgrade := upgradeProxy(location, conn.Transport, false, true)
		handler = upgrade
		if !supportsWebSockets(conn) {
			handler = translator.NewTranslatingHandler(upgrade, translator.NewTunnelingHandler(upgrade), wsstream.IsWebSocketRequestWithTunnelingProtocol)
		}
	}
	handler.ServeHTTP(hijackable{w}, outgoing(r))
	return nil
}

// remoteCommand proxies exec or attach to the kubelet, translating a
// WebSocket client's v5 stream protocol to SPDY for a kubelet that does
// not declare WebSockets.
func remoteCommand(location *url.URL, conn *client.ConnectionInfo, opts translator.Options) http.Handler {
	upgrade := upgradeProxy(location, conn.Transport, false, true)
	if supportsWebSockets(conn) {
		return upgrade
	}
	return translator.NewTranslatingHandler(upgrade, translator.NewStreamTranslatorHandler(location, conn.Transport, 0, opts),
		wsstream.IsWebSocketRequestWithStreamCloseProtocol)
}

func supportsWebSockets(conn *client.ConnectionInfo) bool {
	for _, f := range conn.NodeFeatures {
		if f == extendWebSocketsToKubelet {
			return true
		}
	}
	return false
}

// authorizeCreate asks for "create" on a GET (WebSocket) request, as kube
// 1.37 does: whoever may only "get" pods/exec cannot exec.
func (h *Handler) authorizeCreate(ctx context.Context, info *requestinfo.Info) error {
	if info.Verb == "create" {
		return nil
	}
	user, _ := request.UserFrom(ctx)
	attrs := authz.FromRequestInfo(user, info)
	attrs.Verb = "create"
	forbidden := func(reason string) error {
		// kube's ensureAuthorizedForVerb: the resource without its
		// subresource, and the authorizer's reason alone.
		return apierrors.NewForbidden(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name, errors.New(reason))
	}
	if h.cfg.Authorizer == nil {
		return forbidden("the registry was given no --kubeconfig to check the create verb with")
	}
	res, err := h.cfg.Authorizer.Authorize(ctx, attrs)
	switch {
	case res.Decision == authz.DecisionAllow:
		return nil
	case err != nil:
		return err
	}
	return forbidden(res.Reason)
}

var _ proxy.ErrorResponder = responder{}
