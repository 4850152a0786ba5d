package handler

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// put sends obj back with a change made by edit.
func put(e *env, path string, obj map[string]any, edit func(map[string]any)) map[string]any {
	e.t.Helper()
	edit(obj)
	body, err := json.Marshal(obj)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.mustDo("PUT", path, string(body), http.StatusOK)
}

func set(obj map[string]any, value any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = value
}

// generation counts changes to a Deployment's spec and annotations (which
// its ReplicaSets copy), as kube's strategy does, and nothing else.
func TestGenerationCountsSpecChanges(t *testing.T) {
	e := newEnv(t)
	path := deployPath + "/d"
	check := func(obj map[string]any, want int, what string) {
		t.Helper()
		if got := at(obj, "metadata.generation"); got != float64(want) {
			t.Fatalf("generation %v after %s, want %d", got, what, want)
		}
	}
	d := e.mustDo("POST", deployPath, deployment("d", 1, "nginx:1"), http.StatusCreated)
	check(d, 1, "create")
	d = put(e, path, d, func(o map[string]any) { set(o, map[string]any{"team": "a"}, "metadata", "labels") })
	check(d, 1, "a label change")
	d = e.mustDo("PATCH", path, `{"metadata":{"annotations":{"a":"b"}}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	check(d, 2, "an annotation patch")
	// The same spec as first sent, without the fields the server defaulted.
	var minimal map[string]any
	if err := json.Unmarshal([]byte(deployment("d", 1, "nginx:1")), &minimal); err != nil {
		t.Fatal(err)
	}
	minimal["metadata"] = d["metadata"]
	d = put(e, path, minimal, func(map[string]any) {})
	check(d, 2, "a PUT of the same spec, leaving defaults to the server")
	d = put(e, path, d, func(o map[string]any) { set(o, float64(2), "spec", "replicas") })
	check(d, 3, "a replicas change")
	d = e.mustDo("PATCH", path, `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}}`, http.StatusOK,
		"Content-Type", "application/strategic-merge-patch+json")
	check(d, 4, "an image patch")
	d = put(e, path+"/status", d, func(o map[string]any) { set(o, float64(3), "status", "observedGeneration") })
	check(d, 4, "a status update")
}

// The status subresource writes only status; the main resource ignores it.
func TestStatusSubresource(t *testing.T) {
	e := newEnv(t)
	path := deployPath + "/d"
	body := deployment("d", 1, "nginx:1")
	body = body[:len(body)-1] + `,"status":{"replicas":5}}`
	d := e.mustDo("POST", deployPath, body, http.StatusCreated)
	if at(d, "status.replicas") != nil {
		t.Fatalf("create kept status %v", at(d, "status"))
	}
	d = put(e, path+"/status", d, func(o map[string]any) {
		set(o, float64(3), "status", "replicas")
		set(o, float64(9), "spec", "replicas")
		set(o, map[string]any{"sneaky": "label"}, "metadata", "labels")
	})
	if at(d, "status.replicas") != float64(3) || at(d, "spec.replicas") != float64(1) || at(d, "metadata.labels") != nil {
		t.Fatalf("PUT /status stored status %v, spec.replicas %v, labels %v", at(d, "status"), at(d, "spec.replicas"), at(d, "metadata.labels"))
	}
	d = put(e, path, d, func(o map[string]any) {
		set(o, float64(7), "status", "replicas")
		set(o, float64(2), "spec", "replicas")
	})
	if at(d, "status.replicas") != float64(3) || at(d, "spec.replicas") != float64(2) {
		t.Fatalf("PUT on the resource stored status %v, spec.replicas %v", at(d, "status"), at(d, "spec.replicas"))
	}
	d = e.mustDo("PATCH", path, `{"status":{"replicas":8},"spec":{"replicas":4}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	if at(d, "status.replicas") != float64(3) || at(d, "spec.replicas") != float64(4) {
		t.Fatalf("patch of the resource stored status %v, spec.replicas %v", at(d, "status"), at(d, "spec.replicas"))
	}
	d = e.mustDo("PATCH", path+"/status", `{"status":{"replicas":6},"spec":{"replicas":5}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	if at(d, "status.replicas") != float64(6) || at(d, "spec.replicas") != float64(4) {
		t.Fatalf("patch of /status stored status %v, spec.replicas %v", at(d, "status"), at(d, "spec.replicas"))
	}
	got := e.mustDo("GET", path, "", http.StatusOK)
	if at(got, "status.replicas") != float64(6) || at(got, "spec.replicas") != float64(4) {
		t.Fatalf("stored status %v, spec.replicas %v", at(got, "status"), at(got, "spec.replicas"))
	}
}

// A PUT without resourceVersion overwrites a built-in object; one with a
// stale resourceVersion is a Conflict that changes nothing.
func TestUpdateResourceVersion(t *testing.T) {
	e := newEnv(t)
	first := e.mustDo("POST", cmPath, `{"metadata":{"name":"a"},"data":{"k":"1"}}`, http.StatusCreated)
	second := e.mustDo("PUT", cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"2"}}`, http.StatusOK)
	if str(second, "data.k") != "2" || str(second, "metadata.resourceVersion") == str(first, "metadata.resourceVersion") {
		t.Fatalf("unconditional PUT stored %v", second)
	}
	before := e.etcdState()
	resp, data := e.do("PUT", cmPath+"/a", `{"metadata":{"name":"a","resourceVersion":"`+str(first, "metadata.resourceVersion")+`"},"data":{"k":"3"}}`)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("stale PUT: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a stale PUT")
	third := e.mustDo("PUT", cmPath+"/a", `{"metadata":{"name":"a","resourceVersion":"`+str(second, "metadata.resourceVersion")+`"},"data":{"k":"3"}}`, http.StatusOK)
	if str(third, "metadata.uid") != str(first, "metadata.uid") || str(third, "metadata.creationTimestamp") != str(first, "metadata.creationTimestamp") {
		t.Fatalf("update changed uid or creationTimestamp: %v", third)
	}
	// The same object again is a no-op: nothing written.
	before = e.etcdState()
	same := e.mustDo("PUT", cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"3"}}`, http.StatusOK)
	if str(same, "metadata.resourceVersion") != str(third, "metadata.resourceVersion") {
		t.Fatalf("no-op PUT moved resourceVersion %s -> %s", str(third, "metadata.resourceVersion"), str(same, "metadata.resourceVersion"))
	}
	e.untouched(before, "a no-op PUT")
}

// A patch or apply that empties resourceVersion overwrites a built-in
// object as a PUT without one does, since kube's store treats every verb
// alike (client-go's apply configurations send "resourceVersion": "");
// a kind that allows no unconditional update (CustomResourceDefinitions,
// custom resources) answers it with kube's 422 and changes nothing.
func TestPatchWithoutResourceVersion(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"},"data":{"k":"0"}}`, http.StatusCreated)
	for i, p := range []struct{ contentType, body string }{
		{"application/merge-patch+json", `{"metadata":{"resourceVersion":""},"data":{"k":"1"}}`},
		{"application/merge-patch+json", `{"metadata":{"resourceVersion":null},"data":{"k":"2"}}`},
		{"application/strategic-merge-patch+json", `{"metadata":{"resourceVersion":""},"data":{"k":"3"}}`},
		{"application/json-patch+json", `[{"op":"replace","path":"/metadata/resourceVersion","value":""},{"op":"replace","path":"/data/k","value":"4"}]`},
		{applyCT, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  resourceVersion: \"\"\ndata:\n  k: \"5\"\n"},
	} {
		want := strconv.Itoa(i + 1)
		query := ""
		if p.contentType == applyCT {
			query = "?fieldManager=m&force=true"
		}
		got := e.mustDo("PATCH", cmPath+"/a"+query, p.body, http.StatusOK, "Content-Type", p.contentType)
		if str(got, "data.k") != want || str(got, "metadata.resourceVersion") == "" {
			t.Fatalf("%s %s stored %v", p.contentType, p.body, got)
		}
	}

	crd := e.mustDo("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		`{"metadata":{"name":"gadgets.samples.example.com"},`+kindSamples["apiextensions.k8s.io/customresourcedefinitions"][1:], http.StatusCreated)
	path := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + str(crd, "metadata.name")
	before := e.etcdState()
	resp, data := e.do("PATCH", path, `{"metadata":{"resourceVersion":"","labels":{"x":"y"}}}`, "Content-Type", "application/merge-patch+json")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(data),
		`customresourcedefinitions.apiextensions.k8s.io \"gadgets.samples.example.com\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`) {
		t.Fatalf("a CRD patched without resourceVersion: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a CRD patched without resourceVersion")
}
