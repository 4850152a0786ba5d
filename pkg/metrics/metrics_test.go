package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Requests are labelled as kube labels them: LIST apart from GET, APPLY
// apart from PATCH, the scope, and the code written.
func TestRequestsLabels(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewRequests(reg, "registry", NewResourceSet(
		Resource{Version: "v1", Resource: "pods"}, Resource{Group: "apps", Version: "v1", Resource: "deployments"}))
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			w.WriteHeader(http.StatusConflict)
		}
	}))
	send := func(method, path, contentType string) {
		r := httptest.NewRequest(method, path, strings.NewReader("{}"))
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	send(http.MethodGet, "/api/v1/namespaces/a/pods", "")
	send(http.MethodGet, "/api/v1/namespaces/a/pods/p", "")
	send(http.MethodPatch, "/apis/apps/v1/namespaces/a/deployments/d", "application/apply-patch+yaml")
	send(http.MethodGet, "/metrics", "")
	want := `
# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="registry",group="",resource="",scope="",subresource="",verb="GET",version=""} 1
apiserver_request_total{code="200",component="registry",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="registry",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 1
apiserver_request_total{code="409",component="registry",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_request_total"); err != nil {
		t.Error(err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Stage calls are timed by stage and code, "error" when no answer came.
func TestStagesTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/down" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	reg := prometheus.NewRegistry()
	s := NewStages(reg)
	client := &http.Client{Transport: s.Transport("authz", http.DefaultTransport)}
	for _, p := range []string{"/", "/", "/down"} {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	failing := &http.Client{Transport: s.Transport("authn", roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("connection refused")
	}))}
	if _, err := failing.Get(srv.URL); err == nil {
		t.Fatal("the failing transport answered")
	}
	for labels, want := range map[[2]string]int{{"authz", "200"}: 2, {"authz", "503"}: 1, {"authn", "error"}: 1} {
		h := s.duration.WithLabelValues(labels[0], labels[1]).(prometheus.Histogram)
		if got := histogramCount(t, h); got != want {
			t.Errorf("stage %s code %s: %d calls timed, want %d", labels[0], labels[1], got, want)
		}
	}
	if (*Stages)(nil).Transport("x", http.DefaultTransport) != http.DefaultTransport {
		t.Error("a nil Stages wrapped the transport")
	}
}

func histogramCount(t *testing.T, h prometheus.Histogram) int {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(h)
	families, err := reg.Gather()
	if err != nil || len(families) != 1 {
		t.Fatalf("gather: %v", err)
	}
	return int(families[0].GetMetric()[0].GetHistogram().GetSampleCount())
}

func TestCacheLookups(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := NewCacheLookups(reg, "test_cache_request_total", "lookups")
	c.Observe(t.Context(), true)
	c.Observe(t.Context(), false)
	c.Observe(t.Context(), false)
	if hit, miss := testutil.ToFloat64(c.hit), testutil.ToFloat64(c.miss); hit != 1 || miss != 2 {
		t.Errorf("hit %v miss %v, want 1 and 2", hit, miss)
	}
}

// A request is in flight while it is served, under its kind; a watch is
// not counted, as kube's gauge does not count long-running requests.
func TestInflight(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewRequests(reg, "registry", nil)
	var during float64
	h := m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		during = testutil.ToFloat64(m.inflight.WithLabelValues("mutating")) + 10*testutil.ToFloat64(m.inflight.WithLabelValues("readOnly"))
	}))
	for _, c := range []struct {
		method, path string
		want         float64
	}{
		{http.MethodPost, "/api/v1/namespaces/a/configmaps", 1},
		{http.MethodGet, "/api/v1/namespaces/a/configmaps", 10},
		{http.MethodGet, "/api/v1/namespaces/a/configmaps?watch=true", 0},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(c.method, c.path, nil))
		if during != c.want {
			t.Errorf("%s %s: in flight %v while served (mutating + 10×readOnly), want %v", c.method, c.path, during, c.want)
		}
	}
	if after := testutil.ToFloat64(m.inflight.WithLabelValues("readOnly")); after != 0 {
		t.Errorf("%v requests still in flight after all were served", after)
	}
}
