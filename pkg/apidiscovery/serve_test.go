package apidiscovery

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// testGroups is a small document: apps/v1 deployments with their scale.
func testGroups(t *testing.T) []apidiscoveryv2.APIGroupDiscovery {
	t.Helper()
	v, err := Version("v1", []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment",
			Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
		{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get"}},
		{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"get"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return []apidiscoveryv2.APIGroupDiscovery{{ObjectMeta: metav1.ObjectMeta{Name: "apps"}, Versions: []apidiscoveryv2.APIVersionDiscovery{v}}}
}

func serveTest(t *testing.T, doc *Document) *httptest.Server {
	legacy := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"APIGroupList"}`)
	})
	srv := httptest.NewServer(Serve(legacy, func(*http.Request) (*Document, error) { return doc, nil }))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestServeAggregatedJSONWithETag(t *testing.T) {
	doc := NewDocument(testGroups(t))
	srv := serveTest(t, doc)
	resp, body := get(t, srv.URL, map[string]string{"Accept": AcceptAggregated})
	if resp.StatusCode != http.StatusOK ||
		resp.Header.Get("Content-Type") != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" ||
		resp.Header.Get("Vary") != "Accept" || resp.Header.Get("ETag") != `"`+doc.ETag()+`"` || len(doc.ETag()) != 128 {
		t.Fatalf("%d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Kind != "APIGroupDiscoveryList" || list.APIVersion != "apidiscovery.k8s.io/v2" || len(list.Items) != 1 {
		t.Fatalf("%s", body)
	}
	r := list.Items[0].Versions[0].Resources[0]
	if r.Resource != "deployments" || r.Scope != apidiscoveryv2.ScopeNamespace || r.SingularResource != "deployment" ||
		len(r.Subresources) != 2 || r.Subresources[0].ResponseKind.Group != "autoscaling" || r.Subresources[0].ResponseKind.Kind != "Scale" ||
		list.Items[0].Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent {
		t.Fatalf("%s", body)
	}

	resp, body = get(t, srv.URL, map[string]string{"Accept": AcceptAggregated, "If-None-Match": resp.Header.Get("ETag")})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match with the ETag: %d\n%s", resp.StatusCode, body)
	}
	resp, _ = get(t, srv.URL, map[string]string{"Accept": AcceptAggregated, "If-None-Match": `"stale"`})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("If-None-Match with another ETag: %d", resp.StatusCode)
	}
	if other := NewDocument(nil); other.ETag() == doc.ETag() {
		t.Fatal("different documents share an ETag")
	}
}

func TestServeYAMLAndProtobuf(t *testing.T) {
	srv := serveTest(t, NewDocument(testGroups(t)))
	resp, body := get(t, srv.URL, map[string]string{"Accept": "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := yaml.Unmarshal(body, &list); err != nil || resp.Header.Get("Content-Type") != "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" ||
		list.Items[0].Name != "apps" {
		t.Fatalf("yaml: %v %v\n%s", err, resp.Header, body)
	}
	resp, body = get(t, srv.URL, map[string]string{"Accept": "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
	if resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("protobuf: %v", resp.Header)
	}
	got, err := Decode(body)
	if err != nil || got.Items[0].Versions[0].Resources[0].ShortNames[0] != "deploy" {
		t.Fatalf("protobuf: %v %+v", err, got)
	}
}

func TestServeLegacyAnd406(t *testing.T) {
	srv := serveTest(t, NewDocument(testGroups(t)))
	resp, body := get(t, srv.URL, map[string]string{"Accept": "application/json"})
	if resp.StatusCode != http.StatusOK || string(body) != `{"kind":"APIGroupList"}` {
		t.Fatalf("legacy: %d %s", resp.StatusCode, body)
	}
	resp, body = get(t, srv.URL, map[string]string{"Accept": "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"})
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil || resp.StatusCode != http.StatusNotAcceptable ||
		status.Reason != metav1.StatusReasonNotAcceptable ||
		status.Message != "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf" {
		t.Fatalf("v2beta1 only: %d %s", resp.StatusCode, body)
	}
}
