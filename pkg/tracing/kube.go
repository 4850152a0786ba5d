package tracing

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// The Kubernetes request attributes on every server span.
const (
	AttrVerb        = attribute.Key("k8s.request.verb")
	AttrGroup       = attribute.Key("k8s.request.group")
	AttrVersion     = attribute.Key("k8s.request.version")
	AttrResource    = attribute.Key("k8s.request.resource")
	AttrSubresource = attribute.Key("k8s.request.subresource")
	AttrNamespace   = attribute.Key("k8s.request.namespace")
	AttrName        = attribute.Key("k8s.request.name")
	AttrUser        = attribute.Key("enduser.id")
)

// Describe names the server span of ctx by its route, "{method} {route}"
// as the HTTP semantic conventions say, the route being the path with
// namespace and name as placeholders, and adds the Kubernetes attributes
// and the user (a name, never a credential).
func Describe(ctx context.Context, method string, info *requestinfo.Info, user string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || info == nil {
		return
	}
	route := Route(info)
	span.SetName(method + " " + route)
	attrs := []attribute.KeyValue{attribute.String("http.route", route), AttrVerb.String(info.Verb)}
	if info.IsResourceRequest {
		attrs = append(attrs, AttrGroup.String(info.APIGroup), AttrVersion.String(info.APIVersion),
			AttrResource.String(info.Resource), AttrSubresource.String(info.Subresource),
			AttrNamespace.String(info.Namespace), AttrName.String(info.Name))
	}
	if user != "" {
		attrs = append(attrs, AttrUser.String(user))
	}
	span.SetAttributes(attrs...)
}

// Route is a request's path with its namespace and name replaced by
// placeholders, so that span names stay few:
// /api/v1/namespaces/{namespace}/configmaps/{name}.
func Route(info *requestinfo.Info) string {
	if !info.IsResourceRequest {
		return info.Path
	}
	parts := []string{"", info.APIPrefix}
	if info.APIGroup != "" {
		parts = append(parts, info.APIGroup)
	}
	parts = append(parts, info.APIVersion)
	if info.Namespace != "" && !(info.APIGroup == "" && info.Resource == "namespaces") {
		parts = append(parts, "namespaces", "{namespace}")
	}
	parts = append(parts, info.Resource)
	if info.Name != "" {
		parts = append(parts, "{name}")
	}
	if info.Subresource != "" {
		parts = append(parts, info.Subresource)
	}
	return strings.Join(parts, "/")
}
