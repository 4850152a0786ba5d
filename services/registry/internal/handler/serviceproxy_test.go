package handler

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// services/proxy reaches the service's pod, by port name or number, with
// the path after /proxy; an endpoint that is no pod of the namespace at
// that address is not proxied to (503, kube's message). The EndpointSlice
// is written to the store directly: validation refuses the loopback
// address the test's pod listens on.
func TestServiceProxy(t *testing.T) {
	e := newEnv(t)
	pod := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "pod saw "+r.URL.Path)
	}))
	t.Cleanup(pod.Close)
	port := pod.Listener.Addr().(*net.TCPAddr).Port
	e.serveConnect()
	put := func(resource, group string, obj map[string]any) {
		t.Helper()
		if _, err := e.builtin(group, resource).Create(context.Background(), &unstructured.Unstructured{Object: obj}, false); err != nil {
			t.Fatal(err)
		}
	}
	meta := func(name string, labels map[string]any) map[string]any {
		return map[string]any{"name": name, "namespace": "ns", "labels": labels}
	}
	put("pods", "", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta("backend", nil),
		"spec":   map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}},
		"status": map[string]any{"podIP": "127.0.0.1", "podIPs": []any{map[string]any{"ip": "127.0.0.1"}}}})
	for svc, ref := range map[string]any{"web": map[string]any{"kind": "Pod", "namespace": "ns", "name": "backend"}, "stray": nil} {
		put("services", "", map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": meta(svc, nil),
			"spec": map[string]any{"ports": []any{map[string]any{"name": "http", "port": int64(80)}}}})
		endpoint := map[string]any{"addresses": []any{"127.0.0.1"}}
		if ref != nil {
			endpoint["targetRef"] = ref
		}
		put("endpointslices", "discovery.k8s.io", map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata": meta(svc+"-1", map[string]any{"kubernetes.io/service-name": svc}), "addressType": "IPv4",
			"endpoints": []any{endpoint}, "ports": []any{map[string]any{"name": "http", "port": int64(port)}}})
	}

	for _, id := range []string{"web:http", "web:80", "http:web:" + strconv.Itoa(80)} {
		resp, body := e.do("GET", "/api/v1/namespaces/ns/services/"+id+"/proxy/some/path", "")
		if resp.StatusCode != http.StatusOK || string(body) != "pod saw /some/path" {
			t.Errorf("%s: %d %s", id, resp.StatusCode, body)
		}
	}
	for path, want := range map[string]int{
		"stray/proxy/":   http.StatusServiceUnavailable, // its endpoint is no pod
		"web:81/proxy/":  http.StatusServiceUnavailable, // no such port
		"nope/proxy/":    http.StatusServiceUnavailable, // no slices
		"a:b:c:d/proxy/": http.StatusBadRequest,
	} {
		if resp, body := e.do("GET", "/api/v1/namespaces/ns/services/"+path, ""); resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
}
