package discovery

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// documented is an upstream serving discovery documents by path, which
// the test may replace; it counts the fetches of /api/v1.
type documented struct {
	proxy *proxy.Proxy
	docs  atomic.Pointer[map[string]any]
	core  atomic.Int64
}

func newDocumented(t *testing.T, name string, docs map[string]any) *documented {
	t.Helper()
	d := &documented{}
	d.docs.Store(&docs)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1" {
			d.core.Add(1)
		}
		doc, ok := (*d.docs.Load())[r.URL.Path]
		if r.URL.Path == upstream.DefaultHealthPath {
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	d.proxy = proxyTo(t, name, srv.URL)
	return d
}

// proxyTo is a proxy to the upstream name served at url, resolved.
func proxyTo(t *testing.T, name, url string) *proxy.Proxy {
	t.Helper()
	up, err := upstream.New(upstream.Config{Name: name, URLs: []string{url}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_ = up.Resolve(ctx)
	p, err := proxy.New(proxy.Config{Upstream: up, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func resourceList(gv string, names ...string) *metav1.APIResourceList {
	list := &metav1.APIResourceList{GroupVersion: gv}
	for _, n := range names {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: n})
	}
	return list
}

// Served knows what the upstreams' discovery lists, subresources
// included, and nothing else; made-up resources, however many, cost the
// upstreams at most one refresh per period.
func TestServedFollowsDiscovery(t *testing.T) {
	docs := map[string]any{
		"/apis":         groupList("apps/v1"),
		"/api/v1":       resourceList("v1", "pods", "pods/status"),
		"/apis/apps/v1": resourceList("apps/v1", "deployments", "deployments/scale"),
	}
	registry := newDocumented(t, Registry, docs)
	authn := newDocumented(t, Authn, map[string]any{
		"/apis":                          groupList("authentication.k8s.io/v1"),
		"/apis/authentication.k8s.io/v1": resourceList("authentication.k8s.io/v1", "tokenreviews"),
	})
	authz := newDocumented(t, Authz, map[string]any{"/apis": groupList()})
	var clock atomic.Int64
	clock.Store(time.Unix(1000, 0).UnixNano())
	s, refreshed := servedOver(t, &clock, registry, authn, authz)
	waitRefresh := func() {
		t.Helper()
		select {
		case <-refreshed:
		case <-time.After(waitLimit):
			t.Fatal("no refresh ended")
		}
	}

	// Empty at first: the first question fills it.
	if s.Serves("", "v1", "pods", "") {
		t.Fatal("pods served before any discovery was read")
	}
	waitRefresh()
	for _, r := range [][4]string{
		{"", "v1", "pods", ""}, {"", "v1", "pods", "status"},
		{"apps", "v1", "deployments", ""}, {"apps", "v1", "deployments", "scale"},
		{"authentication.k8s.io", "v1", "tokenreviews", ""},
	} {
		if !s.Serves(r[0], r[1], r[2], r[3]) {
			t.Errorf("%v listed in discovery but not served", r)
		}
	}
	for _, r := range [][4]string{
		{"", "v1", "pods", "exec"}, {"", "v2", "pods", ""}, {"apps", "v1", "madeup", ""}, {"madeup.example", "v1", "things", ""},
	} {
		if s.Serves(r[0], r[1], r[2], r[3]) {
			t.Errorf("%v served though no discovery lists it", r)
		}
	}

	// A flood of misses within the period fetches nothing more.
	fetched := registry.core.Load()
	for range 1000 {
		s.Serves("madeup.example", "v1", "things", "")
	}
	if n := registry.core.Load() - fetched; n != 0 {
		t.Errorf("1000 misses within a period fetched /api/v1 %d more times, want none", n)
	}
	// Once it is over, a miss refreshes once, which finds what appeared
	// (a custom resource's group).
	grown := map[string]any{
		"/apis":                       groupList("apps/v1", "stable.example.com/v1"),
		"/api/v1":                     docs["/api/v1"],
		"/apis/apps/v1":               docs["/apis/apps/v1"],
		"/apis/stable.example.com/v1": resourceList("stable.example.com/v1", "crontabs"),
	}
	registry.docs.Store(&grown)
	clock.Add(int64(servedEvery))
	if s.Serves("stable.example.com", "v1", "crontabs", "") {
		t.Fatal("a new resource served before a refresh read it")
	}
	waitRefresh()
	if n := registry.core.Load() - fetched; n != 1 {
		t.Errorf("a miss after the period fetched /api/v1 %d times, want once", n)
	}
	if !s.Serves("stable.example.com", "v1", "crontabs", "") || !s.Serves("", "v1", "pods", "status") {
		t.Error("the refresh lost or missed a resource discovery lists")
	}
}

// A refresh that could not read every discovery document (an upstream
// starting) is retried after a fifth of the period, not a whole one.
func TestServedRetriesAnIncompleteRefreshSooner(t *testing.T) {
	registry := newDocumented(t, Registry, map[string]any{"/apis": groupList()}) // no /api/v1 yet
	authn := newDocumented(t, Authn, map[string]any{"/apis": groupList()})
	authz := newDocumented(t, Authz, map[string]any{"/apis": groupList()})
	var clock atomic.Int64
	s, refreshed := servedOver(t, &clock, registry, authn, authz)
	ask := func() bool {
		t.Helper()
		if s.Serves("", "v1", "pods", "") {
			return true
		}
		// Serves starts a refresh synchronously, and one signals its end
		// before it clears refreshing.
		if !s.refreshing.Load() && len(refreshed) == 0 {
			return false // none started
		}
		select {
		case <-refreshed:
		case <-time.After(waitLimit):
			t.Fatal("no refresh ended")
		}
		return s.Serves("", "v1", "pods", "")
	}
	if ask() {
		t.Fatal("pods served before /api/v1 listed them")
	}
	registry.docs.Store(&map[string]any{"/apis": groupList(), "/api/v1": resourceList("v1", "pods")})
	clock.Add(int64(servedEvery / 5))
	if !ask() {
		t.Error("pods not served a fifth of the period after a refresh that missed /api/v1")
	}
}

// Fill reads discovery before anyone asks, so the first request is
// labelled.
func TestServedFill(t *testing.T) {
	registry := newDocumented(t, Registry, map[string]any{"/apis": groupList(), "/api/v1": resourceList("v1", "pods")})
	authn := newDocumented(t, Authn, map[string]any{"/apis": groupList()})
	authz := newDocumented(t, Authz, map[string]any{"/apis": groupList()})
	s, refreshed := servedOver(t, nil, registry, authn, authz)
	s.Fill()
	select {
	case <-refreshed:
	case <-time.After(waitLimit):
		t.Fatal("Fill read nothing")
	}
	if !s.Serves("", "v1", "pods", "") {
		t.Error("pods not served after Fill read /api/v1")
	}
}

// servedEvery is the refresh period of servedOver's Served.
const servedEvery = time.Minute

// servedOver is a Served reading the three upstreams' discovery, on clock
// (nil: the real one), and the channel each of its refreshes signals its
// end on.
func servedOver(t *testing.T, clock *atomic.Int64, registry, authn, authz *documented) (*Served, chan struct{}) {
	t.Helper()
	cfg := Config{Table: NewDefaultTable(), Log: quiet,
		Backends: map[string]Backend{Registry: registry.proxy, Authn: authn.proxy, Authz: authz.proxy}}
	if clock != nil {
		cfg.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServed(h, servedEvery)
	refreshed := make(chan struct{}, 10)
	s.done = func() { refreshed <- struct{}{} }
	return s, refreshed
}
