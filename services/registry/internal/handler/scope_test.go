package handler

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// resourcePath is the path of a resource's collection, under namespace ns
// when ns is not empty.
func resourcePath(info *resource.Info, ns string) string {
	p := "/apis/" + info.Group + "/" + info.Version
	if info.Group == "" {
		p = "/api/" + info.Version
	}
	if ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + info.Resource
}

// TestPathScopeMustBeTheResources checks every served resource: the
// aggregator authorizes a path as it reads, so a path whose scope is not
// its resource's must serve nothing. A cluster-scoped resource under a
// namespace (a namespace user reading, patching or deleting another
// tenant's Namespace through /namespaces/<own>/namespaces/<victim>) and a
// namespaced resource named outside any namespace are not found, and
// change nothing in etcd.
func TestPathScopeMustBeTheResources(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/namespaces", `{"metadata":{"name":"victim"}}`, http.StatusCreated)
	// A custom resource may be called "namespaces" too, in its own group.
	custom := &resource.Info{Group: "example.com", Version: "v1", Resource: "namespaces", Kind: "Namespace", Singular: "namespace"}
	st := e.backend.NewStore(custom, storage.StoreOptions{})
	e.h.Add(st)
	e.mustDo("POST", "/apis/example.com/v1/namespaces", `{"apiVersion":"example.com/v1","kind":"Namespace","metadata":{"name":"victim"}}`, http.StatusCreated)

	infos := append(resource.Builtins(), custom)
	before := e.etcdState()
	for _, info := range infos {
		if info.Namespaced {
			path := resourcePath(info, "") + "/victim"
			for _, m := range []string{"GET", "PUT", "PATCH", "DELETE"} {
				e.wantNotFound(m, path)
			}
			continue
		}
		for _, path := range []string{resourcePath(info, "ns"), resourcePath(info, "ns") + "/victim"} {
			for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				e.wantNotFound(m, path)
			}
			e.wantNotFound("GET", path+"?watch=true")
		}
	}
	e.untouched(before, "requests of the wrong scope")
	// What a path of the right scope names is still served.
	e.mustDo("GET", "/api/v1/namespaces/victim", "", http.StatusOK)
	e.mustDo("GET", "/apis/example.com/v1/namespaces/victim", "", http.StatusOK)
}

// wantNotFound requires a 404 Status for a request.
func (e *env) wantNotFound(method, path string) {
	e.t.Helper()
	body := ""
	if method == "POST" || method == "PUT" || method == "PATCH" {
		body = `{"metadata":{"name":"victim","labels":{"owned":"yes"}}}`
	}
	var hdr []string
	if method == "PATCH" {
		hdr = []string{"Content-Type", "application/merge-patch+json"}
	}
	resp, data := e.do(method, path, body, hdr...)
	if resp.StatusCode != http.StatusNotFound {
		e.t.Errorf("%s %s: %d, want 404: %.200s", method, path, resp.StatusCode, data)
	}
}

// TestNamedWatchSeesOnlyItsObject checks the deprecated
// /watch/…/<name> path: it is authorized for one object, so it must not
// stream the others in the namespace.
func TestNamedWatchSeesOnlyItsObject(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/namespaces/ns/configmaps", `{"metadata":{"name":"mine"}}`, http.StatusCreated)
	e.mustDo("POST", "/api/v1/namespaces/ns/configmaps", `{"metadata":{"name":"other"}}`, http.StatusCreated)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", e.url+"/api/v1/watch/namespaces/ns/configmaps/mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	// Changes to the other object come first: were they streamed, they
	// would be read before the change to the watched one.
	e.mustDo("PATCH", "/api/v1/namespaces/ns/configmaps/other", `{"data":{"k":"1"}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	e.mustDo("PATCH", "/api/v1/namespaces/ns/configmaps/mine", `{"data":{"k":"1"}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		var ev struct {
			Type   string
			Object struct {
				Metadata struct{ Name string }
				Data     map[string]string
			}
		}
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("event %q: %v", lines.Text(), err)
		}
		if ev.Object.Metadata.Name != "mine" {
			t.Fatalf("the watch of configmap mine streamed %s of %q", ev.Type, ev.Object.Metadata.Name)
		}
		if ev.Type == "MODIFIED" && ev.Object.Data["k"] == "1" {
			return
		}
	}
	t.Fatalf("the watch ended before the change to mine: %v", lines.Err())
}

// TestWatchParameterSpellings checks that ?watch is read as kube reads a
// bool: "True" or "t" watch, where they once listed.
func TestWatchParameterSpellings(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/namespaces/ns/configmaps", `{"metadata":{"name":"cm"}}`, http.StatusCreated)
	for _, v := range []string{"True", "t", "1", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/api/v1/namespaces/ns/configmaps?watch"+map[bool]string{true: "=" + v}[v != ""], nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		// A watch begins with the existing configmap's ADDED event; a
		// list answers with a ConfigMapList.
		first, err := bufio.NewReader(resp.Body).ReadString('\n')
		resp.Body.Close()
		cancel()
		if err != nil {
			t.Fatalf("watch=%s: %v", v, err)
		}
		if !strings.Contains(first, `"type":"ADDED"`) {
			t.Errorf("watch=%s was not served as a watch: %.200s", v, first)
		}
	}
}
