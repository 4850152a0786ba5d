package handler

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// A custom resource's duplicate fields are found as a built-in kind's are,
// even where its schema keeps unknown fields: refused under Strict with
// etcd untouched, warned about otherwise; numbers stay integers.
func TestCustomResourceDuplicateFields(t *testing.T) {
	e := newEnv(t)
	info := &resource.Info{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Singular: "gadget", Namespaced: true}
	e.h.Add(e.backend.NewStore(info, storage.StoreOptions{}))
	const path = "/apis/example.com/v1/namespaces/ns/gadgets"
	body := `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"%s"},"spec":{"size":1},"spec":{"size":3}}`

	before := e.etcdState()
	resp, data := e.do("POST", path+"?fieldValidation=Strict", strings.ReplaceAll(body, "%s", "strict"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(data), `duplicate field \"spec\"`) {
		t.Fatalf("Strict: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a custom resource refused for a duplicate field")

	resp, data = e.do("POST", path+"?fieldValidation=Warn", strings.ReplaceAll(body, "%s", "warned"))
	if resp.StatusCode != http.StatusCreated || !strings.Contains(strings.Join(resp.Header.Values("Warning"), ";"), `duplicate field \"spec\"`) {
		t.Fatalf("Warn: %d %v %s", resp.StatusCode, resp.Header.Values("Warning"), data)
	}
	if !strings.Contains(string(data), `"spec":{"size":3}`) {
		t.Errorf("the last duplicate, as an integer, is kept: %s", data)
	}
}

// An apply body's duplicate keys, which its conversion to JSON would drop,
// are reported as kube reports them, with the YAML line: a 400 under Strict
// that leaves etcd untouched, a warning under Warn, nothing under Ignore.
func TestApplyDuplicateFields(t *testing.T) {
	e := newEnv(t)
	info := &resource.Info{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Singular: "gadget", Namespaced: true}
	e.h.Add(e.backend.NewStore(info, storage.StoreOptions{}))
	const path = "/apis/example.com/v1/namespaces/ns/gadgets/"
	const body = `apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
spec:
  foo: foo1
  foo: foo2
`
	const dup = `line 7: key \"foo\" already set in map`
	before := e.etcdState()
	resp, data := e.do("PATCH", path+"g?fieldManager=m&fieldValidation=Strict", body, "Content-Type", applyCT)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(data), dup) {
		t.Fatalf("Strict: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "an apply refused for a duplicate key")

	resp, data = e.do("PATCH", path+"g?fieldManager=m&fieldValidation=Warn", body, "Content-Type", applyCT)
	warnings := strings.Join(resp.Header.Values("Warning"), ";")
	if resp.StatusCode != http.StatusCreated || !strings.Contains(warnings, `line 7: key \"foo\" already set in map`) {
		t.Fatalf("Warn: %d %v %s", resp.StatusCode, warnings, data)
	}
	if !strings.Contains(string(data), `"foo":"foo2"`) {
		t.Errorf("the last duplicate is kept: %s", data)
	}

	resp, data = e.do("PATCH", path+"g?fieldManager=m&fieldValidation=Ignore", body, "Content-Type", applyCT)
	if resp.StatusCode != http.StatusOK || len(resp.Header.Values("Warning")) != 0 {
		t.Fatalf("Ignore: %d %v %s", resp.StatusCode, resp.Header.Values("Warning"), data)
	}
}
