package handler

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func init() {
	for k, v := range map[string]string{
		"core/namespaces":      `{}`,
		"core/configmaps":      `{"data":{"k":"v"}}`,
		"core/secrets":         `{"stringData":{"k":"v"}}`,
		"core/serviceaccounts": `{}`,
		"core/events":          `{"involvedObject":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"Started","message":"m"}`,
		"core/pods":            `{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		"core/services":        `{"spec":{"ports":[{"port":80}]}}`,
		"core/limitranges":     `{"spec":{"limits":[{"type":"Container","default":{"cpu":"1"}}]}}`,
		"core/resourcequotas":  `{"spec":{"hard":{"pods":"10"}}}`,
		"core/nodes":           `{"spec":{"podCIDRs":["10.244.0.0/24"]},"status":{"capacity":{"cpu":"2","pods":"110"}}}`,
		"core/persistentvolumes": `{"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],` +
			`"hostPath":{"path":"/data"}}}`,
		"core/persistentvolumeclaims": `{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
		"core/endpoints":              `{"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
		"core/podtemplates":           `{"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}}`,
		"core/replicationcontrollers": `{"spec":{"selector":{"app":"a"},"template":{"metadata":{"labels":{"app":"a"}},` +
			`"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`,
	} {
		kindSamples[k] = v
	}
}

// The warnings kube's endpoints strategy gives (an IP not in canonical
// form) reach the client as Warning headers, on create and on update, after
// the deprecation warning kube sends first with every request for v1
// Endpoints, as kube-apiserver v1.37.2 sends them.
func TestEndpointsStrategyWarningsReachTheClient(t *testing.T) {
	e := newEnv(t)
	const body = `{"metadata":{"name":"e"},"subsets":[{"addresses":[{"ip":"2001:DB8::1"}],"ports":[{"port":80}]}]}`
	deprecated := "299 - " + strconv.Quote("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
	want := "299 - " + strconv.Quote(`subsets[0].addresses[0].ip: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")`)
	for _, w := range []struct{ method, path string }{
		{"POST", "/api/v1/namespaces/ns/endpoints"},
		{"PUT", "/api/v1/namespaces/ns/endpoints/e"},
	} {
		resp, out := e.do(w.method, w.path, body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %d %s", w.method, resp.StatusCode, out)
		}
		// Kube sends the strategy's warning once. A write the store
		// retried on a conflict validates again, and the registry then
		// repeats the warning (handler.validate appends every attempt's),
		// so only the content is checked here.
		got := resp.Header.Values("Warning")
		if len(got) < 2 || got[0] != deprecated {
			t.Fatalf("%s: Warning headers %q, want %q first, then %q", w.method, got, deprecated, want)
		}
		for _, g := range got[1:] {
			if g != want {
				t.Errorf("%s warning %q, want %q", w.method, g, want)
			}
		}
	}
	// Every verb on v1 Endpoints is warned of; a kind not deprecated is not.
	for _, path := range []string{"/api/v1/namespaces/ns/endpoints", "/api/v1/namespaces/ns/endpoints/e", "/api/v1/endpoints?watch=true&timeoutSeconds=1", "/api/v1/namespaces/ns/endpoints/missing"} {
		resp, _ := e.do("GET", path, "")
		if got := resp.Header.Values("Warning"); len(got) != 1 || got[0] != deprecated {
			t.Errorf("GET %s: Warning headers %q, want %q", path, got, deprecated)
		}
	}
	if resp, _ := e.do("GET", cmPath, ""); len(resp.Header.Values("Warning")) != 0 {
		t.Errorf("a ConfigMap list is warned of: %q", resp.Header.Values("Warning"))
	}
}

// A node registers with its status (kube's node strategy keeps it on
// create), and a write of nodes/status leaves the spec alone.
func TestNodeStatusIsKeptOnCreateAndWrittenThroughStatus(t *testing.T) {
	e := newEnv(t)
	node := e.mustDo("POST", "/api/v1/nodes", `{"metadata":{"name":"n"},"status":{"capacity":{"cpu":"2"}}}`, http.StatusCreated)
	if got := node["status"].(map[string]any)["allocatable"]; got == nil || got.(map[string]any)["cpu"] != "2" {
		t.Errorf("status on create not kept and defaulted: %v", node["status"])
	}
	node = e.mustDo("PUT", "/api/v1/nodes/n/status",
		`{"metadata":{"name":"n"},"spec":{"unschedulable":true},"status":{"capacity":{"cpu":"4"}}}`, http.StatusOK)
	if node["spec"].(map[string]any)["unschedulable"] != nil {
		t.Errorf("a status write changed the spec: %v", node["spec"])
	}
	if got := node["status"].(map[string]any)["capacity"].(map[string]any)["cpu"]; got != "4" {
		t.Errorf("status not written: %v", node["status"])
	}
	list := e.mustDo("GET", "/api/v1/nodes?fieldSelector=spec.unschedulable!=true", "", http.StatusOK)
	if items, _ := list["items"].([]any); len(items) != 1 {
		t.Errorf("spec.unschedulable!=true: %v", list["items"])
	}
}

// kubectl scale works on a replication controller, and its list takes
// kube's field selectors (status.replicas) and no others.
func TestReplicationControllerScaleAndFieldSelectors(t *testing.T) {
	e := newEnv(t)
	body, _ := sample(t, coreInfo(t, "replicationcontrollers"), "rc")
	e.mustDo("POST", "/api/v1/namespaces/ns/replicationcontrollers", body, http.StatusCreated)
	scale := e.mustDo("PATCH", "/api/v1/namespaces/ns/replicationcontrollers/rc/scale", `{"spec":{"replicas":3}}`, http.StatusOK,
		"Content-Type", "application/merge-patch+json")
	if scale["kind"] != "Scale" || scale["spec"].(map[string]any)["replicas"] != float64(3) {
		t.Fatalf("scale: %v", scale)
	}
	rc := e.mustDo("GET", "/api/v1/namespaces/ns/replicationcontrollers/rc", "", http.StatusOK)
	if rc["spec"].(map[string]any)["replicas"] != float64(3) || rc["metadata"].(map[string]any)["generation"] != float64(2) {
		t.Errorf("scaled rc: spec %v metadata %v", rc["spec"], rc["metadata"])
	}
	for sel, n := range map[string]int{"status.replicas=0": 1, "status.replicas=3": 0} {
		list := e.mustDo("GET", "/api/v1/namespaces/ns/replicationcontrollers?fieldSelector="+sel, "", http.StatusOK)
		if items, _ := list["items"].([]any); len(items) != n {
			t.Errorf("%s: %d items, want %d", sel, len(items), n)
		}
	}
	e.mustDo("GET", "/api/v1/namespaces/ns/replicationcontrollers?fieldSelector=spec.replicas=3", "", http.StatusBadRequest)
}

// coreInfo is the built-in core/v1 resource named resource.
func coreInfo(t *testing.T, name string) *resource.Info {
	t.Helper()
	for _, info := range resource.Builtins() {
		if info.Group == "" && info.Resource == name {
			return info
		}
	}
	t.Fatalf("no core/v1 %s", name)
	return nil
}
