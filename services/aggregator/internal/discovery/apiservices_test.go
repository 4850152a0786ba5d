package discovery

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAPIServicesRouteAndList: APIServices added at run time take their
// group versions' requests, appear in /apis in kube's priority order, and
// have /apis/<group> served merged; removing them gives the paths back.
func TestAPIServicesRouteAndList(t *testing.T) {
	registry := newService(t, Registry, false, "apps/v1", "metrics.k8s.io/v1alpha1")
	wardle := newService(t, "wardle", false)
	metrics := newService(t, "metrics", false)
	h := newHandler(t, nil, registry, newService(t, Authn, false), newService(t, Authz, false))

	err := h.SetAPIServices([]APIService{
		{Name: "v1alpha1.wardle.example.com", Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 100, VersionPriority: 10, Backend: wardle.proxy},
		{Name: "v1beta1.wardle.example.com", Group: "wardle.example.com", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 10, Backend: wardle.proxy},
		{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 200, VersionPriority: 5, Backend: metrics.proxy},
		// The registry's own version is taken over: it must appear once.
		{Name: "v1alpha1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1alpha1", GroupPriorityMinimum: 100, VersionPriority: 1, Backend: metrics.proxy},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := groupsOf(t, serve(h, http.MethodGet, "/apis"))
	want := []string{"*apps/v1", "*metrics.k8s.io/v1beta1", "metrics.k8s.io/v1alpha1",
		"*wardle.example.com/v1beta1", "wardle.example.com/v1alpha1"}
	if !slices.Equal(got, want) {
		t.Fatalf("/apis = %v, want %v", got, want)
	}
	for path, upstream := range map[string]string{
		"/apis/wardle.example.com/v1alpha1/namespaces/x/flunders/a": "wardle",
		"/apis/metrics.k8s.io/v1alpha1/pods":                        "metrics",
		"/apis/apps/v1/deployments":                                 Registry,
	} {
		if rec := serve(h, http.MethodGet, path); !strings.HasPrefix(rec.Body.String(), upstream+" ") {
			t.Errorf("GET %s answered %q, want it from %s", path, rec.Body, upstream)
		}
	}
	rec := serve(h, http.MethodGet, "/apis/wardle.example.com")
	var g metav1.APIGroup
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil || g.Kind != "APIGroup" || g.PreferredVersion.Version != "v1beta1" || len(g.Versions) != 2 {
		t.Fatalf("/apis/wardle.example.com: %d %s", rec.Code, rec.Body)
	}

	if err := h.SetAPIServices(nil); err != nil {
		t.Fatal(err)
	}
	if got := groupsOf(t, serve(h, http.MethodGet, "/apis")); slices.Contains(got, "*wardle.example.com/v1beta1") {
		t.Errorf("/apis after removal = %v, still lists wardle", got)
	}
	if rec := serve(h, http.MethodGet, "/apis/wardle.example.com/v1alpha1/flunders"); !strings.HasPrefix(rec.Body.String(), Registry+" ") {
		t.Errorf("after removal, wardle's path answered %q, want the registry (the fallback)", rec.Body)
	}
}

func TestSetAPIServicesRefusesDuplicatesAndChangesNothing(t *testing.T) {
	wardle := newService(t, "wardle", false)
	h := newHandler(t, nil, newService(t, Registry, false), newService(t, Authn, false), newService(t, Authz, false))
	ok := APIService{Name: "v1.a.io", Group: "a.io", Version: "v1", Backend: wardle.proxy}
	if err := h.SetAPIServices([]APIService{ok}); err != nil {
		t.Fatal(err)
	}
	if err := h.SetAPIServices([]APIService{ok, ok}); err == nil {
		t.Fatal("two APIServices for one group version were accepted")
	}
	if rec := serve(h, http.MethodGet, "/apis/a.io/v1/things"); !strings.HasPrefix(rec.Body.String(), "wardle ") {
		t.Errorf("after a refused update, a.io/v1 answered %q, want wardle still", rec.Body)
	}
}
