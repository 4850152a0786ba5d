package discovery

import (
	"errors"
	"testing"
)

func TestRoute(t *testing.T) {
	table := NewDefaultTable()
	cases := []struct {
		path, want string
		ok         bool
	}{
		{"/apis/authentication.k8s.io/v1/tokenreviews", Authn, true},
		{"/apis/authentication.k8s.io/v1/selfsubjectreviews", Authn, true},
		{"/apis/authentication.k8s.io", Authn, true},
		{"/apis/authentication.k8s.io/v1", Authn, true},
		{"/apis/authorization.k8s.io/v1/subjectaccessreviews", Authz, true},
		{"/apis/authorization.k8s.io/v1/namespaces/ns/localsubjectaccessreviews", Authz, true},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", Registry, true},
		{"/api/v1/namespaces/ns/serviceaccounts/default/token", Authn, true},
		{"/api/v1/namespaces/ns/serviceaccounts/default", Registry, true},
		{"/api/v1/namespaces/ns/serviceaccounts", Registry, true},
		{"/api/v1/serviceaccounts", Registry, true},
		{"/api/v1/namespaces/ns/secrets/token", Registry, true},
		{"/api/v1/watch/namespaces/ns/serviceaccounts", Registry, true},
		{"/api/v1/namespaces/ns/pods", Registry, true},
		{"/api", Registry, true},
		{"/api/v1", Registry, true},
		{"/apis", Registry, true},
		{"/apis/apps/v1/namespaces/ns/deployments", Registry, true},
		{"/healthz", "", false},
		{"/version", "", false},
		{"/apisx", "", false},
		{"/apis/apps/../authentication.k8s.io/v1/tokenreviews", "", false},
		{"/api/v1/namespaces/./ns/pods", "", false},
	}
	for _, c := range cases {
		got, ok := table.Route(c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("Route(%s) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestRulesAddedLater(t *testing.T) {
	table := NewDefaultTable()
	if err := table.Add(Rule{Group: "metrics.k8s.io", Version: "v1beta1", Upstream: "metrics"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/apis/metrics.k8s.io/v1beta1/pods": "metrics",
		"/apis/metrics.k8s.io/v1/pods":      Registry,
	} {
		if got, _ := table.Route(path); got != want {
			t.Errorf("Route(%s) = %q, want %q", path, got, want)
		}
	}
	if err := table.Add(Rule{Group: "metrics.k8s.io", Version: "v1beta1", Upstream: "other"}); !errors.Is(err, ErrDuplicateRule) {
		t.Errorf("duplicate Add = %v, want ErrDuplicateRule", err)
	}
	for _, bad := range []Rule{{Group: "x"}, {Subresource: "token", Upstream: Authn}} {
		if err := table.Add(bad); !errors.Is(err, ErrInvalidRule) {
			t.Errorf("Add(%+v) = %v, want ErrInvalidRule", bad, err)
		}
	}
	if got := table.Upstreams(); len(got) != 4 || got[0] != Registry {
		t.Errorf("Upstreams = %v, want registry, authn, authz, metrics", got)
	}
}
