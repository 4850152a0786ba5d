package connect

import (
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// decodeOptions reads a request's query into a subresource's internal
// options (PodLogOptions, PodExecOptions …) with kube's parameter codec,
// as kube's handlers do; a value that does not parse is a 400. With
// subpath, the path after the subresource is the options' "path", as
// kube's proxy subresources read it.
func decodeOptions(query url.Values, info *requestinfo.Info, into runtime.Object, subpath bool) error {
	if subpath {
		copied := url.Values{}
		for k, v := range query {
			copied[k] = v
		}
		p := ""
		if len(info.Parts) > 3 {
			p = strings.Join(info.Parts[3:], "/")
		}
		if p != "" && !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if strings.HasSuffix(info.Path, "/") && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		copied["path"] = []string{p}
		query = copied
	}
	if err := legacyscheme.ParameterCodec.DecodeParameters(query, corev1.SchemeGroupVersion, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// Options are a CONNECT request's options as admission reviews them, in
// their v1 form (PodExecOptions, PodAttachOptions, PodPortForwardOptions,
// and the proxies' PodProxyOptions, NodeProxyOptions and
// ServiceProxyOptions), read from the query as the connection will read
// them; nil for a subresource that is no CONNECT (pods/log is a get).
func Options(query url.Values, info *requestinfo.Info) (runtime.Object, error) {
	var opts runtime.Object
	switch info.Subresource {
	case "exec":
		opts = &corev1.PodExecOptions{}
	case "attach":
		opts = &corev1.PodAttachOptions{}
	case "portforward":
		opts = &corev1.PodPortForwardOptions{}
	case "proxy":
		opts = map[string]runtime.Object{
			"pods": &corev1.PodProxyOptions{}, "nodes": &corev1.NodeProxyOptions{}, "services": &corev1.ServiceProxyOptions{},
		}[info.Resource]
	}
	if opts == nil {
		return nil, nil
	}
	if err := decodeOptions(query, info, opts, info.Subresource == "proxy"); err != nil {
		return nil, err
	}
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(opts)
	if err != nil {
		return nil, err
	}
	opts.GetObjectKind().SetGroupVersionKind(gvks[0])
	return opts, nil
}
