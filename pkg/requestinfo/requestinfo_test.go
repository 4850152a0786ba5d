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
		{"GET", "/api/v1/namespaces/ns/pods", "", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods", "true", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/watch/namespaces/ns/pods", "", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments", "", Info{Verb: "create", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "deployments"}},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", Info{Verb: "update", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "deployments", Name: "d", Subresource: "scale"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", "", Info{Verb: "deletecollection", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "configmaps"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps/c", "", Info{Verb: "delete", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "configmaps", Name: "c"}},
		{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", "", Info{Verb: "get", APIPrefix: "apis", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles", Name: "admin"}},
		// A namespace's own path is authorized in it; a path under one
		// names the resource inside it, whatever its scope turns out to be.
		{"GET", "/api/v1/namespaces/t/namespaces", "", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "t", InNamespace: true, Resource: "namespaces"}},
		{"DELETE", "/api/v1/namespaces/t/namespaces/victim", "", Info{Verb: "delete", APIPrefix: "api", APIVersion: "v1", Namespace: "t", InNamespace: true, Resource: "namespaces", Name: "victim"}},
		// In another group, "namespaces" is an ordinary resource name.
		{"GET", "/apis/example.com/v1/namespaces/x", "", Info{Verb: "get", APIPrefix: "apis", APIGroup: "example.com", APIVersion: "v1", Resource: "namespaces", Name: "x"}},
		{"GET", "/apis/example.com/v1/namespaces/t/namespaces/x", "", Info{Verb: "get", APIPrefix: "apis", APIGroup: "example.com", APIVersion: "v1", Namespace: "t", InNamespace: true, Resource: "namespaces", Name: "x"}},
		// ?watch is a bool as kube decodes it, and only a collection's GET
		// becomes a watch by it; the /watch/ prefix makes any GET one.
		{"GET", "/api/v1/namespaces/ns/pods", "True", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods", "t", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods", "FALSE", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods", "0", Info{Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns/pods/p", "true", Info{Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods", Name: "p"}},
		{"GET", "/api/v1/watch/namespaces/ns/pods/p", "", Info{Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "ns", InNamespace: true, Resource: "pods", Name: "p"}},
	}
	for _, c := range cases {
		got := Parse(c.method, c.path, c.watch)
		if !got.IsResourceRequest {
			t.Errorf("%s %s: not a resource request", c.method, c.path)
			continue
		}
		if got.Verb != c.want.Verb || got.APIPrefix != c.want.APIPrefix || got.APIGroup != c.want.APIGroup ||
			got.APIVersion != c.want.APIVersion || got.Namespace != c.want.Namespace || got.Resource != c.want.Resource ||
			got.Name != c.want.Name || got.Subresource != c.want.Subresource || got.InNamespace != c.want.InNamespace {
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

func TestWatchParamPresentWithoutValue(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "/api/v1/namespaces/ns/pods?watch", nil)
	if got := New(r).Verb; got != "watch" {
		t.Errorf("?watch with no value: verb %q, want watch", got)
	}
	r, _ = http.NewRequest(http.MethodGet, "/api/v1/namespaces/ns/pods?watch=false", nil)
	if got := New(r).Verb; got != "list" {
		t.Errorf("?watch=false: verb %q, want list", got)
	}
}

// TestScopeMatches is the rule the registry serves by: a path's scope must
// be its resource's, so that what was authorized is what is served.
func TestScopeMatches(t *testing.T) {
	cases := []struct {
		path       string
		namespaced bool
		want       bool
	}{
		{"/api/v1/namespaces", false, true},
		{"/api/v1/namespaces/foo", false, true},
		{"/api/v1/namespaces/foo/status", false, true},
		{"/api/v1/namespaces/t/namespaces", false, false},
		{"/api/v1/namespaces/t/namespaces/victim", false, false},
		{"/api/v1/namespaces/t/nodes/n", false, false},
		{"/apis/example.com/v1/namespaces/t/widgets/w", false, false},
		{"/api/v1/nodes/n", false, true},
		{"/api/v1/namespaces/t/pods/p", true, true},
		{"/api/v1/namespaces/t/pods", true, true},
		{"/api/v1/pods", true, true},
		{"/api/v1/pods/p", true, false},
		{"/apis/example.com/v1/namespaces/x", true, false},
	}
	for _, c := range cases {
		if got := Parse(http.MethodGet, c.path, "").ScopeMatches(c.namespaced); got != c.want {
			t.Errorf("%s (namespaced %v): ScopeMatches = %v, want %v", c.path, c.namespaced, got, c.want)
		}
	}
}
