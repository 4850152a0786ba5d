package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// discoveryServer is a test upstream serving discovery of gvs: aggregated
// /apis when aggregated (and asked for it), else only legacy documents.
func discoveryServer(t *testing.T, name string, aggregated bool, gvs ...string) *proxy.Proxy {
	t.Helper()
	resources := func(gv string) []metav1.APIResource {
		kind := strings.ToUpper(gv[:1]) + "Thing"
		return []metav1.APIResource{{Name: "things", SingularName: "thing", Namespaced: true, Kind: kind, Verbs: metav1.Verbs{"get"}},
			{Name: "things/status", Namespaced: true, Kind: kind, Verbs: metav1.Verbs{"get"}}}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, _ := apidiscovery.Negotiate(r.Header.Get("Accept"))
		switch {
		case r.URL.Path == upstream.DefaultHealthPath:
		case r.URL.Path == "/apis" && aggregated && out.Aggregated:
			var groups []apidiscoveryv2.APIGroupDiscovery
			for _, gv := range gvs {
				g, v, _ := strings.Cut(gv, "/")
				ver, _ := apidiscovery.Version(v, resources(gv))
				groups = append(groups, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g},
					Versions: []apidiscoveryv2.APIVersionDiscovery{ver}})
			}
			apidiscovery.NewDocument(groups).Write(w, r, out)
		case r.URL.Path == "/apis":
			_ = json.NewEncoder(w).Encode(groupList(gvs...))
		case slices.Contains(gvs, strings.TrimPrefix(r.URL.Path, "/apis/")):
			_ = json.NewEncoder(w).Encode(metav1.APIResourceList{GroupVersion: strings.TrimPrefix(r.URL.Path, "/apis/"),
				APIResources: resources(strings.TrimPrefix(r.URL.Path, "/apis/"))})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return proxyTo(t, name, srv.URL)
}

func TestAggregatedGroupList(t *testing.T) {
	backends := map[string]Backend{
		// The registry also lists authentication.k8s.io, which authn serves.
		Registry: discoveryServer(t, Registry, true, "z.example.com/v1", "apps/v1", "authentication.k8s.io/v1"),
		Authn:    discoveryServer(t, Authn, false, "authentication.k8s.io/v1"), // legacy only: converted
		Authz:    discoveryServer(t, Authz, true, "authorization.k8s.io/v1"),
	}
	h, err := New(Config{Table: NewDefaultTable(), Backends: backends, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	err = h.SetAPIServices([]APIService{
		{Name: "v1.metrics.example.com", Group: "metrics.example.com", Version: "v1", GroupPriorityMinimum: 1500, VersionPriority: 15,
			Backend: discoveryServer(t, "metrics", false, "metrics.example.com/v1")},
		{Name: "v1.down.example.com", Group: "down.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 15,
			Backend: newService(t, "down", true).proxy},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", apidiscovery.AcceptAggregated)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") == "" {
		t.Fatalf("%d %v\n%s", rec.Code, rec.Header(), rec.Body)
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range list.Items {
		for _, v := range g.Versions {
			got = append(got, g.Name+"/"+v.Version+" "+string(v.Freshness)+" "+resourceNames(v))
		}
	}
	// Kube's order: apps and the review groups by kube's priorities, the
	// APIService by its own (1500), the CRD group by kube's (1000), the
	// unreachable APIService (100) last and Stale.
	want := []string{
		"apps/v1 Current things[status]",
		"authentication.k8s.io/v1 Current things[status]",
		"authorization.k8s.io/v1 Current things[status]",
		"metrics.example.com/v1 Current things[status]",
		"z.example.com/v1 Current things[status]",
		"down.example.com/v1 Stale ",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("aggregated /apis:\n got %q\nwant %q", got, want)
	}

	// A client's bad Accept is kube's 406.
	req.Header.Set("Accept", "text/html")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotAcceptable {
		t.Fatalf("Accept text/html: %d %s", rec.Code, rec.Body)
	}
}

func resourceNames(v apidiscoveryv2.APIVersionDiscovery) string {
	var out []string
	for _, r := range v.Resources {
		var subs []string
		for _, s := range r.Subresources {
			subs = append(subs, s.Subresource)
		}
		out = append(out, r.Resource+"["+strings.Join(subs, ",")+"]")
	}
	return strings.Join(out, ",")
}
