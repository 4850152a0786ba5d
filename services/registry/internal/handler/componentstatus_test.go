package handler

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
)

// failingProbe is a component whose check fails, as etcd's when it does
// not answer.
type failingProbe struct{}

func (failingProbe) DoServerCheck() (probe.Result, string, error) {
	return probe.Failure, "", errors.New("context deadline exceeded")
}

// componentsEnv serves componentstatuses of a healthy scheduler (a real
// HTTPS /healthz), a controller-manager nothing listens for, and an etcd
// whose check fails.
func componentsEnv(t *testing.T) *env {
	e := newEnv(t)
	healthy := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			_, _ = w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(healthy.Close)
	port := healthy.Listener.Addr().(*net.TCPAddr).Port
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // a test server's certificate
	e.h.SetComponents(func() map[string]componentstatus.Server {
		return map[string]componentstatus.Server{
			"scheduler":          &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1", Port: port, Path: "/healthz"},
			"controller-manager": &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1", Port: closed, Path: "/healthz"},
			"etcd-0":             failingProbe{},
		}
	})
	return e
}

// componentstatuses are probed when read, as kube's: each component's
// Healthy condition says what its check found, get and list take kube's
// selectors and Table, and no other verb is served. Nothing is written.
func TestComponentStatuses(t *testing.T) {
	e := componentsEnv(t)
	before := e.etcdState()
	const path = "/api/v1/componentstatuses"

	list := e.mustDo("GET", path, "", http.StatusOK)
	items, _ := list["items"].([]any)
	if list["kind"] != "ComponentStatusList" || len(items) != 3 {
		t.Fatalf("list: %v", list)
	}
	got := map[string]string{}
	for _, it := range items {
		item := it.(map[string]any)
		cond := at(item, "conditions").([]any)[0].(map[string]any)
		got[str(item, "metadata.name")] = str(cond, "type") + "=" + str(cond, "status") + " " + str(cond, "message") + str(cond, "error")
	}
	if got["scheduler"] != "Healthy=True ok" || !strings.HasPrefix(got["controller-manager"], "Healthy=False ") ||
		got["etcd-0"] != "Healthy=False context deadline exceeded" {
		t.Errorf("conditions: %v", got)
	}

	one := e.mustDo("GET", path+"/scheduler", "", http.StatusOK)
	if one["kind"] != "ComponentStatus" || one["apiVersion"] != "v1" || str(one, "metadata.name") != "scheduler" {
		t.Errorf("get: %v", one)
	}
	selected := e.mustDo("GET", path+"?fieldSelector=metadata.name%3Detcd-0", "", http.StatusOK)
	if n := len(selected["items"].([]any)); n != 1 {
		t.Errorf("field selector kept %d items, want 1", n)
	}

	table := e.mustDo("GET", path+"/scheduler", "", http.StatusOK, "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
	rows := table["rows"].([]any)
	cells := rows[0].(map[string]any)["cells"].([]any)
	if table["kind"] != "Table" || len(table["columnDefinitions"].([]any)) != 4 || cells[0] != "scheduler" || cells[1] != "Healthy" {
		t.Errorf("table: %v", table)
	}
	if kind := str(rows[0].(map[string]any), "object.kind"); kind != "PartialObjectMetadata" {
		t.Errorf("a row's object is a %q, want PartialObjectMetadata", kind)
	}

	resp, _ := e.do("GET", path, "")
	if w := resp.Header.Get("Warning"); !strings.Contains(w, "v1 ComponentStatus is deprecated") {
		t.Errorf("Warning %q, want kube's deprecation", w)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", path + "/nope", ""},
		{"GET", path + "?watch=true", ""},
		{"POST", path, `{"metadata":{"name":"x"}}`},
		{"DELETE", path + "/scheduler", ""},
		{"GET", path + "?labelSelector=a%3D%3D%3D", ""},
	} {
		resp, data := e.do(c.method, c.path, c.body)
		want := map[string]int{"/nope": 404}[strings.TrimPrefix(c.path, path)]
		if want == 0 {
			want = http.StatusMethodNotAllowed
			if strings.Contains(c.path, "labelSelector") {
				want = http.StatusBadRequest
			}
		}
		if resp.StatusCode != want {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, resp.StatusCode, want, data)
		}
	}
	e.untouched(before, "componentstatuses")
}
