package discovery

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestMergedGroupList(t *testing.T) {
	registry := newService(t, Registry, false, "apps/v1", "batch/v1", "batch/v1beta1", "authentication.k8s.io/v1")
	authn := newService(t, Authn, false, "authentication.k8s.io/v1")
	authz := newService(t, Authz, false, "authorization.k8s.io/v1")
	h := newHandler(t, nil, registry, authn, authz)
	got := groupsOf(t, serve(h, http.MethodGet, "/apis"))
	want := []string{"*authentication.k8s.io/v1", "*authorization.k8s.io/v1", "*apps/v1", "*batch/v1", "batch/v1beta1"}
	if !slices.Equal(got, want) {
		t.Fatalf("/apis = %v, want %v", got, want)
	}
}

func TestMergedGroupListSurvivesADownUpstream(t *testing.T) {
	registry := newService(t, Registry, false, "apps/v1")
	authn := newService(t, Authn, false, "authentication.k8s.io/v1")
	authz := newService(t, Authz, true, "authorization.k8s.io/v1")
	h := newHandler(t, nil, registry, authn, authz)
	got := groupsOf(t, serve(h, http.MethodGet, "/apis"))
	if want := []string{"*authentication.k8s.io/v1", "*apps/v1"}; !slices.Equal(got, want) {
		t.Fatalf("/apis = %v, want %v", got, want)
	}
}

func TestGroupListWithNoUpstreamIsUnavailable(t *testing.T) {
	h := newHandler(t, nil, newService(t, Registry, true), newService(t, Authn, true), newService(t, Authz, true))
	rec := serve(h, http.MethodGet, "/apis")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("/apis: %d Retry-After %q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestGroupListIsCached(t *testing.T) {
	services := []*service{
		newService(t, Registry, false, "apps/v1"), newService(t, Authn, false), newService(t, Authz, false),
	}
	start := time.Unix(1000, 0)
	var now time.Time
	h := newHandler(t, func() time.Time { return now }, services...)
	for i, at := range []time.Duration{0, DefaultCacheFor - time.Millisecond, DefaultCacheFor} {
		now = start.Add(at)
		groupsOf(t, serve(h, http.MethodGet, "/apis"))
		want := int64(1 + i/2) // fetched at 0, and again once the cache expired
		for _, s := range services {
			if n := s.fetches.Load(); n != want {
				t.Errorf("%s after %v: /apis fetched %d times, want %d", s.name, at, n, want)
			}
		}
	}
}

// TestIncompleteGroupListIsKeptBriefly: a merge an upstream was missing
// from (authz still starting when the aggregator first read /apis) is
// asked again after IncompleteFor, so its groups do not stay missing for
// the cache's whole lifetime.
func TestIncompleteGroupListIsKeptBriefly(t *testing.T) {
	reg := newService(t, Registry, false, "apps/v1")
	start := time.Unix(1000, 0)
	now := start
	h := newHandler(t, func() time.Time { return now }, reg, newService(t, Authn, false), newService(t, Authz, true))
	groupsOf(t, serve(h, http.MethodGet, "/apis"))
	now = start.Add(IncompleteFor / 2)
	groupsOf(t, serve(h, http.MethodGet, "/apis"))
	if n := reg.fetches.Load(); n != 1 {
		t.Errorf("/apis fetched %d times within IncompleteFor of a merge without authz, want 1", n)
	}
	now = start.Add(IncompleteFor)
	groupsOf(t, serve(h, http.MethodGet, "/apis"))
	if n := reg.fetches.Load(); n != 2 {
		t.Errorf("/apis fetched %d times IncompleteFor after a merge without authz, want 2", n)
	}
}

// TestAPIServicesRefreshGroupList: a change of APIServices (a CRD's local
// one when its group arrives) drops the cached /apis at once.
func TestAPIServicesRefreshGroupList(t *testing.T) {
	reg := newService(t, Registry, false, "apps/v1")
	now := time.Unix(1000, 0)
	h := newHandler(t, func() time.Time { return now }, reg, newService(t, Authn, false), newService(t, Authz, false))
	groupsOf(t, serve(h, http.MethodGet, "/apis"))
	if err := h.SetAPIServices(nil); err != nil {
		t.Fatal(err)
	}
	groupsOf(t, serve(h, http.MethodGet, "/apis"))
	if n := reg.fetches.Load(); n != 2 {
		t.Errorf("/apis fetched %d times within the cache's lifetime, want 2: SetAPIServices must refresh it", n)
	}
}

func TestRequestsAreForwardedByRoute(t *testing.T) {
	h := newHandler(t, nil, newService(t, Registry, false), newService(t, Authn, false), newService(t, Authz, false))
	cases := []struct{ method, path, want string }{
		{http.MethodGet, "/api", "registry GET /api"},
		{http.MethodGet, "/api/v1", "registry GET /api/v1"},
		{http.MethodGet, "/apis/authentication.k8s.io", "authn GET /apis/authentication.k8s.io"},
		{http.MethodGet, "/apis/authorization.k8s.io/v1", "authz GET /apis/authorization.k8s.io/v1"},
		{http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", "authn POST /apis/authentication.k8s.io/v1/tokenreviews"},
		{http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/sa/token", "authn POST /api/v1/namespaces/ns/serviceaccounts/sa/token"},
		{http.MethodGet, "/api/v1/namespaces/ns/serviceaccounts/sa", "registry GET /api/v1/namespaces/ns/serviceaccounts/sa"},
		{http.MethodGet, "/apis/apps/v1", "registry GET /apis/apps/v1"},
		// kube answers discovery with a trailing slash too.
		{http.MethodGet, "/apis/authentication.k8s.io/", "authn GET /apis/authentication.k8s.io"},
		{http.MethodGet, "/apis/authorization.k8s.io/v1/", "authz GET /apis/authorization.k8s.io/v1"},
		{http.MethodGet, "/api/v1/", "registry GET /api/v1"},
	}
	for _, c := range cases {
		rec := serve(h, c.method, c.path)
		if rec.Code != http.StatusOK || rec.Body.String() != c.want {
			t.Errorf("%s %s: %d %q, want %q", c.method, c.path, rec.Code, rec.Body, c.want)
		}
	}
	if rec := serve(h, http.MethodGet, "/healthz"); rec.Code != http.StatusNotFound {
		t.Errorf("/healthz: %d, want 404", rec.Code)
	}
	if rec := serve(h, http.MethodPost, "/apis"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /apis: %d, want 405", rec.Code)
	}
}

func TestNewNeedsABackendPerUpstream(t *testing.T) {
	_, err := New(Config{Table: NewDefaultTable(), Backends: map[string]Backend{Registry: newService(t, Registry, false).proxy}})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("New without authn and authz = %v, want ErrInvalidConfig", err)
	}
}

// Registered is the merged discovery with the upstreams that did not
// answer, as fresh as /apis: kube's autoregistration of their groups.
func TestRegisteredNamesTheUpstreamsMissing(t *testing.T) {
	h := newHandler(t, nil, newService(t, Registry, false, "apps/v1"), newService(t, Authn, false),
		newService(t, Authz, true, "authorization.k8s.io/v1"))
	groups, missing := h.Registered(t.Context())
	if len(groups) != 1 || groups[0].Name != "apps" || !slices.Equal(missing, []string{Authz}) {
		t.Errorf("Registered = %v, missing %v; want apps, missing authz", groups, missing)
	}
	h = newHandler(t, nil, newService(t, Registry, false, "apps/v1"), newService(t, Authn, false),
		newService(t, Authz, false, "authorization.k8s.io/v1"))
	if groups, missing := h.Registered(t.Context()); len(groups) != 2 || len(missing) != 0 {
		t.Errorf("all answering: Registered = %v, missing %v", groups, missing)
	}
}
