package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// served is the catalog of these tests: pods with their status, and
// deployments.
var served = NewResourceSet(
	Resource{Version: "v1", Resource: "pods"},
	Resource{Version: "v1", Resource: "pods", Subresource: "status"},
	Resource{Group: "apps", Version: "v1", Resource: "deployments"},
)

// seriesOf gathers reg and returns every series of the request metrics,
// each as its labels.
func seriesOf(t *testing.T, reg *prometheus.Registry) []map[string]string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var series []map[string]string
	for _, f := range families {
		if f.GetName() != "apiserver_request_total" && f.GetName() != "apiserver_request_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{"__name__": f.GetName()}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			series = append(series, l)
		}
	}
	return series
}

// Requests nobody authenticated yet, to made-up groups, versions,
// resources, subresources, non-resource paths and with made-up methods,
// add a bounded number of series however many there are; the resources
// served keep their labels.
func TestMadeUpRequestsAddBoundedSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewRequests(reg, "apiserver", served)
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	send := func(method, path string) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil))
	}
	const n = 2000
	for i := range n {
		method := []string{http.MethodGet, http.MethodPost, "PROPFIND", fmt.Sprintf("MADEUP%d", i), "get", "Head", "watchlist"}[i%7]
		switch i % 6 {
		case 0:
			send(method, fmt.Sprintf("/apis/madeup%d.example/v%d/namespaces/ns%d/things%d/x/sub%d", i, i, i, i, i))
		case 1:
			send(method, fmt.Sprintf("/api/v%d/pods%d", i, i))
		case 2:
			send(method, fmt.Sprintf("/api/v1/namespaces/a/pods/p/madeup%d", i))
		case 3:
			send(method, fmt.Sprintf("/apis/madeup%d/v%d", i, i)) // discovery of a made-up group
		case 4:
			send(method, fmt.Sprintf("/madeup/%d", i))
		default:
			send(method, fmt.Sprintf("/apis/apps/v%d/deployments", i)) // a served resource at a made-up version
		}
	}
	series := seriesOf(t, reg)
	// Verbs (kube's 13 and "other") × scopes (4) × the two metrics
	// bound them; the requests above use far fewer.
	if len(series) > 2*14*4 {
		t.Errorf("%d made-up requests made %d series, want a bounded number", n, len(series))
	}
	for _, s := range series {
		for name, v := range s {
			if strings.Contains(strings.ToLower(v), "madeup") || strings.Contains(v, "sub") || strings.Contains(v, "things") {
				t.Fatalf("label %s=%q of %v comes from a made-up request", name, v, s)
			}
		}
		if s["group"] != "" || s["version"] != "" || s["resource"] != "" || s["subresource"] != "" {
			t.Errorf("a made-up request is labelled with a resource: %v", s)
		}
	}
	verbs := map[string]bool{}
	for _, s := range series {
		verbs[s["verb"]] = true
	}
	for _, v := range []string{"other", "GET", "LIST", "POST", "WATCH"} {
		if !verbs[v] {
			t.Errorf("no series with verb %q among %v", v, verbs)
		}
	}
	if verbs["PROPFIND"] || verbs["MADEUP0"] || verbs["HEAD"] || verbs["WATCHLIST"] {
		t.Errorf("a made-up method is a verb label: %v", verbs)
	}

	// What is served keeps its labels, subresources included.
	send(http.MethodGet, "/api/v1/namespaces/a/pods")
	send(http.MethodPut, "/api/v1/namespaces/a/pods/p/status")
	send(http.MethodGet, "/apis/apps/v1/deployments")
	want := []string{
		"LIST  v1 pods  namespace",
		"PUT  v1 pods status resource",
		"LIST apps v1 deployments  cluster",
	}
	for _, w := range want {
		found := false
		for _, s := range seriesOf(t, reg) {
			if strings.Join([]string{s["verb"], s["group"], s["version"], s["resource"], s["subresource"], s["scope"]}, " ") == w {
				found = true
			}
		}
		if !found {
			t.Errorf("no series labelled %q for a served resource", w)
		}
	}
}

// Without a catalog (admission's webhooks are no API resources), no
// request names a resource.
func TestNoCatalogNamesNothing(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := NewRequests(reg, "admission", nil).Middleware(http.NotFoundHandler())
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/a/pods", nil))
	for _, s := range seriesOf(t, reg) {
		if s["resource"] != "" || s["version"] != "" || s["verb"] != "LIST" || s["scope"] != "namespace" {
			t.Errorf("series %v, want verb LIST, scope namespace and no resource", s)
		}
	}
}

// Verbs are kube's: LIST and WATCH apart from GET, APPLY apart from PATCH,
// CONNECT for streaming subresources, HEAD a GET, methods in any case,
// every other method "other".
func TestReportedVerb(t *testing.T) {
	for _, c := range []struct {
		method, path, contentType, want string
	}{
		{http.MethodGet, "/api/v1/namespaces/a/pods", "", "LIST"},
		{http.MethodGet, "/api/v1/namespaces/a/pods?watch=true", "", "WATCH"},
		{http.MethodHead, "/api/v1/namespaces/a/pods/p", "", "GET"},
		{http.MethodPatch, "/api/v1/namespaces/a/pods/p", "application/apply-patch+yaml", "APPLY"},
		{http.MethodPatch, "/api/v1/namespaces/a/pods/p", "application/merge-patch+json", "PATCH"},
		{http.MethodPost, "/api/v1/namespaces/a/pods/p/exec", "", "CONNECT"},
		{http.MethodDelete, "/api/v1/namespaces/a/pods", "", "DELETE"},
		{"post", "/api/v1/namespaces/a/pods", "", "POST"},
		{"OPTIONS", "/api/v1/namespaces/a/pods", "", "other"},
		{http.MethodHead, "/healthz", "", "GET"},
		{"delete", "/healthz", "", "DELETE"},
		{"PROPFIND", "/", "", "other"},
		{"WatchList", "/x", "", "WATCH"},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if c.contentType != "" {
			r.Header.Set("Content-Type", c.contentType)
		}
		if got := reportedVerb(r, requestinfo.New(r)); got != c.want {
			t.Errorf("%s %s: verb %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

// The lookups run on every request: neither a catalog's nor a made-up
// method's allocates.
func TestLookupsDoNotAllocate(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() { served.Serves("madeup", "v9", "things", "sub") }); a != 0 {
		t.Errorf("ResourceSet.Serves: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { methodVerb("propfind") }); a != 0 {
		t.Errorf("methodVerb: %v allocations", a)
	}
}

// BenchmarkMiddleware is what counting costs a request.
func BenchmarkMiddleware(b *testing.B) {
	h := NewRequests(prometheus.NewRegistry(), "apiserver", served).Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/a/pods/p", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}
