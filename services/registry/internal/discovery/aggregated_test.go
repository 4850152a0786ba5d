package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/discovery"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func TestStorageVersionHash(t *testing.T) {
	h := New(resource.Builtins)
	hashes := map[string]string{}
	for _, path := range []string{"/api/v1", "/apis/apps/v1", "/apis/certificates.k8s.io/v1", "/apis/events.k8s.io/v1"} {
		var list metav1.APIResourceList
		if code := get(t, h, path, &list); code != http.StatusOK {
			t.Fatalf("%s: %d", path, code)
		}
		for _, r := range list.APIResources {
			hashes[list.GroupVersion+"/"+r.Name] = r.StorageVersionHash
		}
	}
	for key, want := range map[string]string{
		// What a kube-apiserver lists.
		"v1/pods":             "xPOwRZ+Yhw8=",
		"apps/v1/deployments": "8aSe+NMegvE=",
		// Stored at v1beta1 in kube 1.37, though served at v1.
		"certificates.k8s.io/v1/clustertrustbundles": discovery.StorageVersionHash("certificates.k8s.io", "v1beta1", "ClusterTrustBundle"),
		"v1/bindings":     "", // not stored
		"v1/pods/status":  "",
		"v1/pods/binding": "",
	} {
		if got := hashes[key]; got != want {
			t.Errorf("%s: storageVersionHash %q, want %q", key, got, want)
		}
	}
}

func TestAggregatedDiscovery(t *testing.T) {
	h := New(resource.Builtins)
	get := func(path string) apidiscoveryv2.APIGroupDiscoveryList {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", apidiscovery.AcceptAggregated)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK || list.Kind != "APIGroupDiscoveryList" {
			t.Fatalf("%s: %d %v", path, rec.Code, err)
		}
		return list
	}
	core := get("/api")
	if len(core.Items) != 1 || core.Items[0].Name != "" || core.Items[0].Versions[0].Version != "v1" {
		t.Fatalf("/api lists %+v", core.Items)
	}
	var pods apidiscoveryv2.APIResourceDiscovery
	var names []string
	for _, r := range core.Items[0].Versions[0].Resources {
		names = append(names, r.Resource)
		if r.Resource == "pods" {
			pods = r
		}
	}
	if !slices.IsSorted(names) || pods.Scope != apidiscoveryv2.ScopeNamespace || pods.ResponseKind.Kind != "Pod" ||
		pods.SingularResource != "pod" || !slices.Contains(pods.Categories, "all") {
		t.Errorf("/api: resources %v, pods %+v", names, pods)
	}
	for _, sub := range pods.Subresources {
		if sub.Subresource == "eviction" && (sub.ResponseKind.Group != "policy" || sub.ResponseKind.Kind != "Eviction") {
			t.Errorf("pods/eviction: %+v", sub)
		}
	}

	var groups []string
	for _, g := range get("/apis").Items {
		groups = append(groups, g.Name)
	}
	// kube's priority order, not the names'.
	if len(groups) < 3 || groups[0] != "apiregistration.k8s.io" || groups[1] != "apps" || groups[2] != "events.k8s.io" {
		t.Errorf("/apis groups in order %v", groups)
	}
}
