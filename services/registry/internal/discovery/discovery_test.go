package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func get(t *testing.T, h http.Handler, path string, into any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return rec.Code
}

func TestDiscovery(t *testing.T) {
	h := New(resource.Builtins)
	var core metav1.APIResourceList
	if code := get(t, h, "/api/v1", &core); code != 200 {
		t.Fatalf("/api/v1: %d", code)
	}
	names := map[string]metav1.APIResource{}
	for _, r := range core.APIResources {
		names[r.Name] = r
	}
	if p, ok := names["pods"]; !ok || !p.Namespaced || p.Kind != "Pod" || p.ShortNames[0] != "po" {
		t.Errorf("pods entry = %+v", p)
	}
	if _, ok := names["pods/status"]; !ok {
		t.Errorf("pods/status missing")
	}
	if ns := names["namespaces"]; ns.Namespaced {
		t.Errorf("namespaces listed as namespaced")
	}
	var groups metav1.APIGroupList
	get(t, h, "/apis", &groups)
	seen := map[string]bool{}
	for _, g := range groups.Groups {
		seen[g.Name] = true
		if g.PreferredVersion.Version == "" {
			t.Errorf("group %s has no preferred version", g.Name)
		}
	}
	for _, want := range []string{"apps", "rbac.authorization.k8s.io", "coordination.k8s.io", "apiextensions.k8s.io"} {
		if !seen[want] {
			t.Errorf("/apis lacks %s", want)
		}
	}
	var apps metav1.APIResourceList
	if code := get(t, h, "/apis/apps/v1", &apps); code != 200 || apps.GroupVersion != "apps/v1" {
		t.Errorf("/apis/apps/v1: %d %+v", code, apps)
	}
	if code := get(t, h, "/apis/nope/v1", &apps); code != 404 {
		t.Errorf("/apis/nope/v1: %d, want 404", code)
	}
}
