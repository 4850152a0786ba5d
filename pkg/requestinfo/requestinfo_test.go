package requestinfo

import (
	"net/http"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		method, path, watch string
		want                Info
	}{
		{"GET", "/api/v1/namespaces", "", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "namespaces"}},
		{"GET", "/api/v1/namespaces/foo", "", Info{Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "foo", Resource: "namespaces", Name: "foo"}},
		{"PUT", "/api/v1/namespaces/foo/finalize", "", Info{Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "foo", Resource: "namespaces", Name: "foo", Subresource: "finalize"}},
		{"PATCH", "/api/v1/namespaces/foo/status", "", Info{Verb: "patch", APIPrefix: "api", APIVersion: "v1", Namespace: "foo", Resource: "namespaces", Name: "foo", Subresource: "status"}},
		{"GET", "/api/v1/namespaces/ns/pods", "", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods", "true", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", Resource: "pods"}},
		{"GET", "/api/v1/watch/namespaces/ns/pods", "", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", Resource: "pods"}},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments", "", Info{Verb: "create", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", Resource: "deployments"}},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", Info{Verb: "update", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", Resource: "deployments", Name: "d", Subresource: "scale"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", "", Info{Verb: "deletecollection", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", Resource: "configmaps"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps/c", "", Info{Verb: "delete", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", Resource: "configmaps", Name: "c"}},
		{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", "", Info{Verb: "get", APIPrefix: "apis", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles", Name: "admin"}},
	}
	for _, c := range cases {
		got := Parse(c.method, c.path, c.watch)
		if !got.IsResourceRequest {
			t.Errorf("%s %s: not a resource request", c.method, c.path)
			continue
		}
		if got.Verb != c.want.Verb || got.APIPrefix != c.want.APIPrefix || got.APIGroup != c.want.APIGroup ||
			got.APIVersion != c.want.APIVersion || got.Namespace != c.want.Namespace || got.Resource != c.want.Resource ||
			got.Name != c.want.Name || got.Subresource != c.want.Subresource {
			t.Errorf("%s %s = %+v, want %+v", c.method, c.path, *got, c.want)
		}
	}
}

func TestNonResource(t *testing.T) {
	for _, p := range []string{"/", "/healthz", "/version", "/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/openapi/v2"} {
		got := Parse(http.MethodGet, p, "")
		if got.IsResourceRequest {
			t.Errorf("%s: parsed as resource request %+v", p, got)
		}
		if got.Verb != "get" {
			t.Errorf("%s: verb %q, want get", p, got.Verb)
		}
	}
}
