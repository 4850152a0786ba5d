package handler

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/client"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/registry/internal/connect"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// noKubelet answers every kubelet lookup with an error, so that a request
// that got past admission says so.
type noKubelet struct{}

func (noKubelet) GetConnectionInfo(context.Context, types.NodeName) (*client.ConnectionInfo, error) {
	return nil, errors.New("no kubelet in this test")
}

// serveConnect has the handler serve the connect subresources from its
// stores, with no kubelet to reach.
func (e *env) serveConnect() {
	e.t.Helper()
	c, err := connect.New(connect.Config{Pods: e.builtin("", "pods"), Nodes: e.builtin("", "nodes"), Services: e.builtin("", "services"),
		EndpointSlices: e.builtin("discovery.k8s.io", "endpointslices"), Kubelets: noKubelet{}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.h.SetConnect(c)
}

// builtin is the store of a built-in v1 resource.
func (e *env) builtin(group, resource string) *storage.Store {
	return e.h.stores[schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}]
}

// A CONNECT (exec, attach, portforward, the proxies) is admitted before it
// connects, as kube admits it: the review names the operation CONNECT, the
// options kind and the subresource, and carries the options the query
// gives; a denial is the answer and nothing is connected. pods/log is a
// get, not admitted.
func TestConnectIsAdmitted(t *testing.T) {
	var mu sync.Mutex
	var seen []*admission.Attributes
	e := newEnvWith(t, Admission{Validating: admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, a)
		if strings.Contains(string(a.Object.Raw), `"rm"`) {
			return admission.Deny(http.StatusForbidden, "no rm here"), nil
		}
		return admission.Allow(), nil
	})})
	e.serveConnect()
	newPod(e, "p")
	seen = nil
	before := e.etcdState()

	resp, body := e.do("POST", podsPath+"/p/exec?command=rm&command=-rf&stdout=true", "")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "no rm here") {
		t.Fatalf("denied exec: %d %s", resp.StatusCode, body)
	}
	if len(seen) != 1 {
		t.Fatalf("admission asked %d times, want once", len(seen))
	}
	a := seen[0]
	if a.Operation != "CONNECT" || a.Kind.Kind != "PodExecOptions" || a.Kind.Version != "v1" || a.Resource.Resource != "pods" ||
		a.SubResource != "exec" || a.Name != "p" || a.Namespace != "ns" || !strings.Contains(string(a.Object.Raw), `"command":["rm","-rf"]`) {
		t.Errorf("review: %+v object %s", a, a.Object.Raw)
	}
	for path, kind := range map[string]string{
		podsPath + "/p/exec?command=ls&stdout=true": "PodExecOptions",
		podsPath + "/p/portforward?ports=80":        "PodPortForwardOptions",
		podsPath + "/p/proxy/some/path":             "PodProxyOptions",
		"/api/v1/nodes/n/proxy/healthz":             "NodeProxyOptions",
	} {
		seen = nil
		resp, body := e.do("POST", path, "")
		if len(seen) != 1 || seen[0].Kind.Kind != kind {
			t.Errorf("POST %s: admitted %d times (%v), want once as %s; answered %d %s", path, len(seen), seen, kind, resp.StatusCode, body)
		}
	}
	seen = nil
	e.do("GET", podsPath+"/p/log", "")
	if len(seen) != 0 {
		t.Errorf("pods/log was admitted: %+v", seen)
	}
	e.untouched(before, "connect requests")
}
