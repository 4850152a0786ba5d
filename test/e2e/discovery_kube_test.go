package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// notYetServed is every resource a real kube-apiserver serves by default
// that kubesplit does not serve yet, by API version and resource name as
// legacy discovery names them ("v1/pods", "apps/v1/deployments", a
// subresource as "v1/pods/eviction"), with the reason. A subresource of a
// resource listed here is implied. TestDiscoveryMatchesKube fails when an
// entry is served after all, so the list only shrinks: delete the line
// once the resource is served.
var notYetServed = map[string]string{}

// servedBeyondKube is what kubesplit serves that a default kube-apiserver
// does not, keyed as notYetServed is, with the reason it is served anyway.
// It fails the same way when an entry is no longer an extra.
var servedBeyondKube = map[string]string{}

// TestDiscoveryMatchesKube compares kubesplit's legacy discovery (/api,
// /api/v1, /apis, /apis/<group>/<version>) and kubectl api-resources -o wide
// with those of a real kube-apiserver (framework.KubeVersion) with its
// default API groups: the same resources in the same group versions, each
// with the same kind, singular name, scope, verbs, short names, categories
// and subresources, and the same preferred version of every group, except
// for what notYetServed and servedBeyondKube list.
func TestDiscoveryMatchesKube(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{})
	k := framework.StartKubeAPIServer(t)
	ksServer := discoveryServer{name: "kubesplit", url: s.Aggregator.URL, token: s.AdminToken, client: s.HTTPClient(t)}
	kubeServer := discoveryServer{name: "kube", url: k.URL(), token: k.AdminToken, client: k.HTTPClient(t)}

	for _, srv := range []discoveryServer{kubeServer, ksServer} {
		t.Logf("aggregated discovery: %s", srv.aggregated(t))
	}

	kube, ks := kubeServer.read(t), ksServer.read(t)
	diffs := compareDiscovery(kube, ks)

	kubeOut, kubeErr := k.Kubectl(t, "", "api-resources", "-o", "wide")
	kubeRows := apiResourceRows(t, "kube", kubeOut, kubeErr)
	ksKubeconfig := s.Aggregator.Kubeconfig(t, "discovery-admin", s.AdminToken)
	ksOut, ksErr := s.Aggregator.Kubectl(t, ksKubeconfig, "", "api-resources", "-o", "wide")
	ksRows := apiResourceRows(t, "kubesplit", ksOut, ksErr)
	diffs = append(diffs, compareAPIResourceRows(kubeRows, ksRows)...)

	for _, d := range diffs {
		t.Error(d)
	}
	t.Run("kubectl get componentstatuses", func(t *testing.T) {
		// Nothing runs a scheduler or controller-manager on their default
		// ports here, so only etcd's row is compared in full.
		kubeCS, err := k.Kubectl(t, "", "get", "componentstatuses", "--no-headers")
		ksCS, ksErr := s.Aggregator.Kubectl(t, ksKubeconfig, "", "get", "componentstatuses", "--no-headers")
		if err != nil || ksErr != nil {
			t.Fatalf("kube: %v\n%s\nkubesplit: %v\n%s", err, kubeCS, ksErr, ksCS)
		}
		if got, want := componentRows(ksCS), componentRows(kubeCS); !slices.Equal(got, want) {
			t.Errorf("kubectl get cs:\n kubesplit %v\n kube      %v", got, want)
		}
	})
	if missing := missingKeys(kube, ks); len(missing) > 0 {
		t.Logf("kubesplit's discovery lacks %d of the resources kube's lists (notYetServed has %d):\n%s", len(missing), len(notYetServed), strings.Join(missing, "\n"))
	}
}

// componentRows are kubectl get cs's rows: each component's name, and
// etcd's status and message too.
func componentRows(out string) []string {
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(f[0], "etcd-") {
			rows = append(rows, strings.Join(f[:3], " "))
		} else if len(f) > 0 && !strings.HasPrefix(line, "Warning:") {
			rows = append(rows, f[0])
		}
	}
	sort.Strings(rows)
	return rows
}

// discoveryServer is an API server whose discovery a test reads as an
// admin.
type discoveryServer struct {
	name, url, token string
	client           *http.Client
}

// discovery is what an API server's legacy discovery says.
type discovery struct {
	// groups are the API groups of /api ("") and /apis, each with its
	// versions and its preferred version.
	groups map[string]metav1.APIGroup
	// resources are the resources and subresources of every group
	// version, by discoveryKey.
	resources map[string]resourceEntry
	// groupVersions is every group version listed, by group version
	// ("v1", "apps/v1").
	groupVersions map[string]bool
}

// resourceEntry is a resource or subresource of a group version.
type resourceEntry struct {
	groupVersion string
	metav1.APIResource
}

// parent is the key of a subresource's resource ("v1/pods" for
// "v1/pods/status"), and false for a resource.
func (e resourceEntry) parent() (string, bool) {
	name, _, sub := strings.Cut(e.Name, "/")
	if !sub {
		return "", false
	}
	return discoveryKey(e.groupVersion, name), true
}

// discoveryKey names a resource of a group version as notYetServed does:
// "v1/pods", "apps/v1/deployments", "v1/pods/status".
func discoveryKey(groupVersion, resource string) string { return groupVersion + "/" + resource }

// get reads path as the admin with the Accept header, and returns the
// status, the content type and the body.
func (d discoveryServer) get(t testing.TB, path, accept string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Accept", accept)
	resp, err := d.client.Do(req)
	if err != nil {
		t.Fatalf("%s: GET %s: %v", d.name, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: GET %s: %v", d.name, path, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// getJSON reads a legacy discovery document into v, failing the test
// unless it is a 200.
func (d discoveryServer) getJSON(t testing.TB, path string, v any) {
	t.Helper()
	code, _, body := d.get(t, path, "application/json")
	if code != http.StatusOK {
		t.Fatalf("%s: GET %s: %d\n%s", d.name, path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: GET %s: %v\n%s", d.name, path, err, body)
	}
}

// read walks legacy discovery: /api and /api/<v>, /apis and every
// /apis/<group>/<version> it lists.
func (d discoveryServer) read(t testing.TB) discovery {
	t.Helper()
	out := discovery{groups: map[string]metav1.APIGroup{}, resources: map[string]resourceEntry{}, groupVersions: map[string]bool{}}
	var core metav1.APIVersions
	d.getJSON(t, "/api", &core)
	coreGroup := metav1.APIGroup{}
	for _, v := range core.Versions {
		coreGroup.Versions = append(coreGroup.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
	}
	if len(coreGroup.Versions) > 0 {
		// /api has no preferred version: clients take the first.
		coreGroup.PreferredVersion = coreGroup.Versions[0]
	}
	out.groups[""] = coreGroup
	var groups metav1.APIGroupList
	d.getJSON(t, "/apis", &groups)
	for _, g := range groups.Groups {
		if _, dup := out.groups[g.Name]; dup {
			t.Errorf("%s: /apis lists group %q twice", d.name, g.Name)
		}
		out.groups[g.Name] = g
	}
	for name, g := range out.groups {
		for _, v := range g.Versions {
			path := "/apis/" + v.GroupVersion
			if name == "" {
				path = "/api/" + v.GroupVersion
			}
			var list metav1.APIResourceList
			d.getJSON(t, path, &list)
			if list.GroupVersion != v.GroupVersion {
				t.Errorf("%s: %s says groupVersion %q", d.name, path, list.GroupVersion)
			}
			out.groupVersions[v.GroupVersion] = true
			for _, r := range list.APIResources {
				key := discoveryKey(v.GroupVersion, r.Name)
				if _, dup := out.resources[key]; dup {
					t.Errorf("%s: %s lists %s twice", d.name, path, r.Name)
				}
				out.resources[key] = resourceEntry{groupVersion: v.GroupVersion, APIResource: r}
			}
		}
	}
	return out
}

// aggregated says how the server answers a request for aggregated
// discovery (apidiscovery.k8s.io/v2) of /apis and /api.
func (d discoveryServer) aggregated(t testing.TB) string {
	t.Helper()
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	var parts []string
	for _, path := range []string{"/apis", "/api"} {
		code, contentType, body := d.get(t, path, accept)
		var list struct {
			Kind       string            `json:"kind"`
			APIVersion string            `json:"apiVersion"`
			Items      []json.RawMessage `json:"items"`
		}
		answer := fmt.Sprintf("%d %q", code, contentType)
		if json.Unmarshal(body, &list) == nil && list.Kind == "APIGroupDiscoveryList" {
			answer += fmt.Sprintf(", %s %s of %d groups", list.APIVersion, list.Kind, len(list.Items))
		} else {
			answer += fmt.Sprintf(", not an APIGroupDiscoveryList (kind %q)", list.Kind)
		}
		parts = append(parts, path+": "+answer)
	}
	return d.name + ": " + strings.Join(parts, "; ")
}

// compareDiscovery lists how kubesplit's discovery differs from kube's,
// beyond what notYetServed and servedBeyondKube say, and every entry of
// theirs that no longer holds.
func compareDiscovery(kube, ks discovery) []string {
	var diffs []string
	for _, key := range sortedKeys(kube.resources) {
		want := kube.resources[key]
		got, served := ks.resources[key]
		parent, isSub := kube.resources[key].parent()
		switch {
		case !served && isSub && ks.resources[parent].Name == "":
			// The resource itself is missing: reported for it.
		case !served && notYetServed[key] != "":
		case !served:
			diffs = append(diffs, fmt.Sprintf("%s: kube's discovery lists it (kind %s), kubesplit's does not, and notYetServed does not list it", key, gvk(want.APIResource)))
		case notYetServed[key] != "":
			diffs = append(diffs, fmt.Sprintf("%s: kubesplit's discovery lists it now: delete it from notYetServed (%q)", key, notYetServed[key]))
			fallthrough
		default:
			diffs = append(diffs, compareResource(key, isSub, want, got)...)
		}
	}
	for _, key := range sortedKeys(ks.resources) {
		if _, ok := kube.resources[key]; ok {
			continue
		}
		parent, isSub := ks.resources[key].parent()
		if isSub {
			if _, ok := kube.resources[parent]; !ok && ks.resources[parent].Name != "" {
				continue // part of an extra resource, reported for it
			}
		}
		if servedBeyondKube[key] == "" {
			diffs = append(diffs, fmt.Sprintf("%s: kubesplit's discovery lists it (kind %s), kube's does not, and servedBeyondKube does not list it", key, gvk(ks.resources[key].APIResource)))
		}
	}
	for gv := range ks.groupVersions {
		if !kube.groupVersions[gv] && servedBeyondKube[gv] == "" {
			hasResources := false
			for _, e := range ks.resources {
				hasResources = hasResources || e.groupVersion == gv
			}
			if !hasResources {
				diffs = append(diffs, fmt.Sprintf("%s: kubesplit lists the group version, with no resources; kube does not list it", gv))
			}
		}
	}

	// Entries that no longer hold.
	for _, key := range sortedKeys(notYetServed) {
		_, inKube := kube.resources[key]
		_, inKS := ks.resources[key]
		parent, isSub := kube.resources[key].parent()
		switch {
		case !inKube:
			diffs = append(diffs, fmt.Sprintf("notYetServed lists %s, which kube does not serve either", key))
		case inKS:
			// Reported above.
		case isSub && notYetServed[parent] != "":
			diffs = append(diffs, fmt.Sprintf("notYetServed lists %s, implied by %s", key, parent))
		}
	}
	for _, key := range sortedKeys(servedBeyondKube) {
		_, inKube := kube.resources[key]
		_, inKS := ks.resources[key]
		if ks.groupVersions[key] && !kube.groupVersions[key] {
			continue
		}
		if inKube || !inKS {
			diffs = append(diffs, fmt.Sprintf("servedBeyondKube lists %s, which is no longer an extra (kube serves it: %t, kubesplit serves it: %t)", key, inKube, inKS))
		}
	}

	// Preferred versions of the groups both serve.
	for _, name := range sortedKeys(kube.groups) {
		want := kube.groups[name]
		got, ok := ks.groups[name]
		if !ok {
			continue // its resources are reported
		}
		if got.PreferredVersion.GroupVersion != want.PreferredVersion.GroupVersion {
			diffs = append(diffs, fmt.Sprintf("group %q: preferred version: kube %q, kubesplit %q", name, want.PreferredVersion.GroupVersion, got.PreferredVersion.GroupVersion))
		}
	}
	return diffs
}

// compareResource lists how one resource or subresource differs: kind,
// and for a resource its singular name, scope, short names and
// categories; verbs compared sorted.
func compareResource(key string, isSub bool, want, got resourceEntry) []string {
	var diffs []string
	field := func(name string, w, g any) {
		if fmt.Sprint(w) != fmt.Sprint(g) {
			diffs = append(diffs, fmt.Sprintf("%s: %s: kube %v, kubesplit %v", key, name, w, g))
		}
	}
	field("kind", gvk(want.APIResource), gvk(got.APIResource))
	field("verbs", sortedStrings(want.Verbs), sortedStrings(got.Verbs))
	field("storageVersionHash", quoted(want.StorageVersionHash), quoted(got.StorageVersionHash))
	if isSub {
		return diffs
	}
	field("singularName", quoted(want.SingularName), quoted(got.SingularName))
	field("namespaced", want.Namespaced, got.Namespaced)
	field("shortNames", []string(want.ShortNames), []string(got.ShortNames))
	field("categories", want.Categories, got.Categories)
	return diffs
}

// gvk is a resource's kind, with the group and version a subresource
// states ("autoscaling/v1 Scale").
func gvk(r metav1.APIResource) string {
	switch {
	case r.Group != "" || r.Version != "":
		return fmt.Sprintf("%s/%s %s", r.Group, r.Version, r.Kind)
	default:
		return r.Kind
	}
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

func sortedStrings(in []string) []string {
	out := slices.Clone(in)
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// missingKeys is what kube serves that kubesplit does not (resources, and
// subresources of the resources it serves), as lines of a notYetServed
// literal, so a failure shows the list as it is.
func missingKeys(kube, ks discovery) []string {
	var out []string
	for _, key := range sortedKeys(kube.resources) {
		if _, ok := ks.resources[key]; ok {
			continue
		}
		if parent, isSub := kube.resources[key].parent(); isSub {
			if _, ok := ks.resources[parent]; !ok {
				continue
			}
		}
		out = append(out, fmt.Sprintf("\t%q: %q,", key, notYetServed[key]))
	}
	return out
}

// apiResourceRows parses the output of kubectl api-resources -o wide
// (failing the test if kubectl failed) into its rows, by
// "<APIVERSION>/<NAME>" (the key notYetServed uses), each row a column
// name → value map. Columns are cut where the header's words start, since
// SHORTNAMES and CATEGORIES may be empty.
func apiResourceRows(t testing.TB, server, out string, err error) map[string]map[string]string {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: kubectl api-resources -o wide: %v\n%s", server, err, out)
	}
	ls := lines(out)
	columns := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"}
	if len(ls) == 0 || !framework.LineStartsWith(ls[0], columns...) {
		t.Fatalf("%s: kubectl api-resources -o wide header:\n%s", server, out)
	}
	starts := make([]int, len(columns))
	for i, c := range columns {
		starts[i] = strings.Index(ls[0], c)
	}
	rows := map[string]map[string]string{}
	for _, l := range ls[1:] {
		row := map[string]string{}
		for i, c := range columns {
			from, to := starts[i], len(l)
			if i+1 < len(columns) {
				to = min(starts[i+1], len(l))
			}
			if from < len(l) {
				row[c] = strings.TrimSpace(l[from:to])
			}
		}
		key := row["APIVERSION"] + "/" + row["NAME"]
		if _, dup := rows[key]; dup {
			t.Errorf("%s: kubectl api-resources lists %s twice:\n%s", server, key, out)
		}
		rows[key] = row
	}
	return rows
}

// compareAPIResourceRows lists how kubectl api-resources -o wide differs
// between kube and kubesplit, beyond notYetServed and servedBeyondKube.
func compareAPIResourceRows(kube, ks map[string]map[string]string) []string {
	var diffs []string
	columns := []string{"SHORTNAMES", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"}
	for _, key := range sortedKeys(kube) {
		want := kube[key]
		got, ok := ks[key]
		switch {
		case !ok && notYetServed[key] == "":
			diffs = append(diffs, fmt.Sprintf("kubectl api-resources: kube lists %s (kind %s), kubesplit does not", key, want["KIND"]))
		case ok:
			for _, c := range columns {
				if want[c] != got[c] {
					diffs = append(diffs, fmt.Sprintf("kubectl api-resources %s: %s: kube %q, kubesplit %q", key, c, want[c], got[c]))
				}
			}
		}
	}
	for _, key := range sortedKeys(ks) {
		if _, ok := kube[key]; !ok && servedBeyondKube[key] == "" {
			diffs = append(diffs, fmt.Sprintf("kubectl api-resources: kubesplit lists %s (kind %s), kube does not", key, ks[key]["KIND"]))
		}
	}
	return diffs
}
