package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	discoveryclient "k8s.io/client-go/discovery"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestAggregatedDiscoveryMatchesKube compares kubesplit's aggregated
// discovery (apidiscovery.k8s.io/v2 at /api and /apis, what client-go
// and kubectl ask for first) with a real kube-apiserver's: the same
// groups in the same order, the same versions in the same order, and
// every resource with every field (responseKind, scope, singular, verbs,
// short names, categories, subresources with their kinds and verbs),
// except what notYetServed lists; legacy discovery's storageVersionHash
// of every resource both serve; ETag and 304; kube's 406 for an Accept
// discovery cannot answer (v2beta1 only, text/html); protobuf; that
// kubectl api-resources and client-go's discovery client make one
// request per root; and that a CRD's resources appear as kube lists them.
func TestAggregatedDiscoveryMatchesKube(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{})
	k := framework.StartKubeAPIServer(t)
	ks := discoveryServer{name: "kubesplit", url: s.Aggregator.URL, token: s.AdminToken, client: s.HTTPClient(t)}
	kube := discoveryServer{name: "kube", url: k.URL(), token: k.AdminToken, client: k.HTTPClient(t)}

	t.Run("documents", func(t *testing.T) {
		for _, root := range []string{"/api", "/apis"} {
			for _, d := range compareAggregated(kube.aggregatedList(t, root), ks.aggregatedList(t, root)) {
				t.Errorf("%s: %s", root, d)
			}
		}
	})

	t.Run("storageVersionHash", func(t *testing.T) {
		kubeLegacy, ksLegacy := kube.read(t), ks.read(t)
		compared := 0
		for _, key := range sortedKeys(kubeLegacy.resources) {
			got, ok := ksLegacy.resources[key]
			if !ok {
				continue
			}
			compared++
			if want := kubeLegacy.resources[key].StorageVersionHash; got.StorageVersionHash != want {
				t.Errorf("%s: storageVersionHash: kube %q, kubesplit %q", key, want, got.StorageVersionHash)
			}
		}
		if compared < 100 {
			t.Errorf("compared only %d resources", compared)
		}
	})

	t.Run("etag and 304", func(t *testing.T) {
		for _, srv := range []discoveryServer{kube, ks} {
			resp := srv.do(t, "/apis", map[string]string{"Accept": apidiscovery.AcceptAggregated})
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != http.StatusOK || etag == "" || resp.Header.Get("Vary") != "Accept" {
				t.Fatalf("%s: %d, ETag %q, Vary %q", srv.name, resp.StatusCode, etag, resp.Header.Get("Vary"))
			}
			resp = srv.do(t, "/apis", map[string]string{"Accept": apidiscovery.AcceptAggregated, "If-None-Match": etag})
			if resp.StatusCode != http.StatusNotModified {
				t.Errorf("%s: If-None-Match with the ETag: %d, want 304", srv.name, resp.StatusCode)
			}
		}
	})

	t.Run("406", func(t *testing.T) {
		for _, accept := range []string{
			"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
			"text/html",
		} {
			for _, root := range []string{"/api", "/apis"} {
				want, wantBody := discoveryStatus(t, kube, root, accept)
				got, gotBody := discoveryStatus(t, ks, root, accept)
				if want.Code != http.StatusNotAcceptable || got.Code != want.Code || got.Reason != want.Reason || got.Message != want.Message {
					t.Errorf("GET %s Accept %q:\nkube      %s\nkubesplit %s", root, accept, wantBody, gotBody)
				}
			}
		}
	})

	t.Run("protobuf", func(t *testing.T) {
		accept := "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		code, contentType, body := ks.get(t, "/apis", accept)
		list, err := apidiscovery.Decode(body)
		if code != http.StatusOK || contentType != accept || err != nil {
			t.Fatalf("%d %q %v", code, contentType, err)
		}
		if want := ks.aggregatedList(t, "/apis"); len(list.Items) != len(want.Items) {
			t.Errorf("protobuf lists %d groups, JSON %d", len(list.Items), len(want.Items))
		}
	})

	t.Run("clients make one request per root", func(t *testing.T) {
		kubeconfig := s.Aggregator.Kubeconfig(t, "aggregated-discovery", s.AdminToken)
		out, err := s.Aggregator.Kubectl(t, kubeconfig, "", "api-resources", "--cache-dir", t.TempDir(), "-v=6")
		if err != nil {
			t.Fatalf("kubectl api-resources: %v\n%s", err, out)
		}
		if !strings.Contains(out, "deployments") || !strings.Contains(out, "tokenreviews") || !strings.Contains(out, "subjectaccessreviews") {
			t.Errorf("kubectl api-resources misses resources:\n%s", out)
		}
		if got := discoveryRequests(out); !slices.Equal(got, []string{"/api", "/apis"}) {
			t.Errorf("kubectl api-resources asked %v, want /api and /apis once each", got)
		}

		cfg := s.RESTConfig(t, s.AdminToken)
		var mu sync.Mutex
		var paths []string
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				paths = append(paths, r.URL.Path)
				mu.Unlock()
				return rt.RoundTrip(r)
			})
		}
		dc, err := discoveryclient.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, lists, err := dc.ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(paths)
		if !slices.Equal(paths, []string{"/api", "/apis"}) || len(lists) < 20 {
			t.Errorf("client-go discovery asked %v and found %d group versions", paths, len(lists))
		}
	})

	t.Run("custom resource", func(t *testing.T) {
		const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.disco.example.com}
spec:
  group: disco.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`
		kubeconfig := s.Aggregator.Kubeconfig(t, "aggregated-discovery-crd", s.AdminToken)
		if out, err := s.Aggregator.Kubectl(t, kubeconfig, crd, "apply", "-f", "-"); err != nil {
			t.Fatalf("kubesplit: %v\n%s", err, out)
		}
		if out, err := k.Kubectl(t, crd, "apply", "-f", "-"); err != nil {
			t.Fatalf("kube: %v\n%s", err, out)
		}
		want, got := kube.waitForGroup(t, "disco.example.com"), ks.waitForGroup(t, "disco.example.com")
		for _, d := range compareAggregated(want, got) {
			t.Error(d)
		}
		if len(got.Items) > 0 && len(got.Items[0].Versions) > 0 {
			v := got.Items[0].Versions[0]
			if v.Version != "v1" || len(v.Resources) != 1 || len(v.Resources[0].Subresources) != 2 {
				t.Errorf("kubesplit lists %+v", v)
			}
		}
		kubeLegacy, ksLegacy := kube.read(t), ks.read(t)
		key := "disco.example.com/v1beta1/widgets"
		if w, g := kubeLegacy.resources[key].StorageVersionHash, ksLegacy.resources[key].StorageVersionHash; w == "" || w != g {
			t.Errorf("%s: storageVersionHash: kube %q, kubesplit %q", key, w, g)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// do sends a GET of path with header as the admin.
func (d discoveryServer) do(t testing.TB, path string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		t.Fatalf("%s: GET %s: %v", d.name, path, err)
	}
	resp.Body.Close()
	return resp
}

// aggregatedList reads the aggregated document of /api or /apis.
func (d discoveryServer) aggregatedList(t testing.TB, root string) *apidiscoveryv2.APIGroupDiscoveryList {
	t.Helper()
	code, contentType, body := d.get(t, root, apidiscovery.AcceptAggregated)
	if code != http.StatusOK || contentType != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("%s: GET %s: %d %q\n%.500s", d.name, root, code, contentType, body)
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil || list.Kind != "APIGroupDiscoveryList" {
		t.Fatalf("%s: GET %s: %v\n%.500s", d.name, root, err, body)
	}
	return &list
}

// waitForGroup waits until aggregated /apis lists group, and returns a
// document of that group alone.
func (d discoveryServer) waitForGroup(t testing.TB, group string) *apidiscoveryv2.APIGroupDiscoveryList {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := d.aggregatedList(t, "/apis")
		for _, g := range list.Items {
			if g.Name == group && len(g.Versions) == 2 && len(g.Versions[0].Resources) > 0 && len(g.Versions[1].Resources) > 0 {
				return &apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{g}}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: aggregated /apis does not list %s after 30s", d.name, group)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// discoveryStatus reads the Status a GET of path with accept answers.
func discoveryStatus(t testing.TB, d discoveryServer, path, accept string) (metav1.Status, string) {
	t.Helper()
	code, _, body := d.get(t, path, accept)
	var s metav1.Status
	_ = json.Unmarshal(body, &s)
	s.Code = int32(code)
	return s, fmt.Sprintf("%d %.300s", code, body)
}

// compareAggregated lists how kubesplit's aggregated document differs
// from kube's beyond notYetServed and servedBeyondKube: group order
// (among the groups both list), each group's versions in order, and each
// version's freshness and resources, in order and field by field.
func compareAggregated(kube, ks *apidiscoveryv2.APIGroupDiscoveryList) []string {
	var diffs []string
	kubeGroups, ksGroups := map[string]apidiscoveryv2.APIGroupDiscovery{}, map[string]apidiscoveryv2.APIGroupDiscovery{}
	for _, g := range kube.Items {
		kubeGroups[g.Name] = g
	}
	for _, g := range ks.Items {
		ksGroups[g.Name] = g
	}
	var kubeOrder, ksOrder []string
	for _, g := range kube.Items {
		if _, ok := ksGroups[g.Name]; ok {
			kubeOrder = append(kubeOrder, g.Name)
		}
	}
	for _, g := range ks.Items {
		if _, ok := kubeGroups[g.Name]; ok {
			ksOrder = append(ksOrder, g.Name)
		} else if servedBeyondKube[g.Name] == "" {
			diffs = append(diffs, fmt.Sprintf("kubesplit lists group %q, kube does not", g.Name))
		}
	}
	if !slices.Equal(kubeOrder, ksOrder) {
		diffs = append(diffs, fmt.Sprintf("group order:\nkube      %v\nkubesplit %v", kubeOrder, ksOrder))
	}
	for _, g := range kube.Items {
		got, ok := ksGroups[g.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("kube lists group %q, kubesplit does not", g.Name))
			continue
		}
		var wantVersions, gotVersions []string
		for _, v := range g.Versions {
			wantVersions = append(wantVersions, v.Version)
		}
		for _, v := range got.Versions {
			gotVersions = append(gotVersions, v.Version)
		}
		if !slices.Equal(wantVersions, gotVersions) {
			diffs = append(diffs, fmt.Sprintf("group %q versions: kube %v, kubesplit %v", g.Name, wantVersions, gotVersions))
			continue
		}
		for i, v := range g.Versions {
			diffs = append(diffs, compareVersion(schemaGV(g.Name, v.Version), v, got.Versions[i])...)
		}
	}
	return diffs
}

func schemaGV(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// compareVersion compares one group version's entries, leaving out what
// notYetServed lists.
func compareVersion(gv string, want, got apidiscoveryv2.APIVersionDiscovery) []string {
	var diffs []string
	if want.Freshness != got.Freshness {
		diffs = append(diffs, fmt.Sprintf("%s: freshness: kube %q, kubesplit %q", gv, want.Freshness, got.Freshness))
	}
	wantRes := servedOnly(gv, want.Resources)
	var wantNames, gotNames []string
	for _, r := range wantRes {
		wantNames = append(wantNames, r.Resource)
	}
	for _, r := range got.Resources {
		gotNames = append(gotNames, r.Resource)
	}
	if !slices.Equal(wantNames, gotNames) {
		diffs = append(diffs, fmt.Sprintf("%s: resources:\nkube      %v\nkubesplit %v", gv, wantNames, gotNames))
	}
	byName := map[string]apidiscoveryv2.APIResourceDiscovery{}
	for _, r := range got.Resources {
		byName[r.Resource] = r
	}
	for _, w := range wantRes {
		g, ok := byName[w.Resource]
		if !ok {
			continue
		}
		wj, _ := json.Marshal(w)
		gj, _ := json.Marshal(g)
		if string(wj) != string(gj) {
			diffs = append(diffs, fmt.Sprintf("%s/%s:\nkube      %s\nkubesplit %s", gv, w.Resource, wj, gj))
		}
	}
	return diffs
}

// servedOnly drops the resources and subresources notYetServed lists.
func servedOnly(gv string, rs []apidiscoveryv2.APIResourceDiscovery) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	for _, r := range rs {
		if notYetServed[discoveryKey(gv, r.Resource)] != "" {
			continue
		}
		var subs []apidiscoveryv2.APISubresourceDiscovery
		for _, sub := range r.Subresources {
			if notYetServed[discoveryKey(gv, r.Resource+"/"+sub.Subresource)] == "" {
				subs = append(subs, sub)
			}
		}
		r.Subresources = subs
		out = append(out, r)
	}
	return out
}

// discoveryRequest matches a request kubectl -v=6 logs, capturing its
// path.
var discoveryRequest = regexp.MustCompile(`https://[^/"\s]+(/[^?"\s]*)`)

// discoveryRequests are the discovery paths (/api…, /apis…) kubectl's
// log shows it asked, sorted.
func discoveryRequests(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, "GET") {
			continue
		}
		m := discoveryRequest.FindStringSubmatch(l)
		if m != nil && (m[1] == "/api" || m[1] == "/apis" || strings.HasPrefix(m[1], "/api/") || strings.HasPrefix(m[1], "/apis/")) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}
