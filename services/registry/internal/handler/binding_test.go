package handler

import (
	"net/http"
	"testing"
)

const podsPath = "/api/v1/namespaces/ns/pods"

func newPod(e *env, name string) {
	e.mustDo("POST", podsPath, `{"metadata":{"name":"`+name+`"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, http.StatusCreated)
}

// A scheduler's Binding assigns the pod once: nodeName, the Binding's
// annotations and PodScheduled; a second binding is 409 and changes
// nothing, as are bad bindings.
func TestBindingAssignsAPodOnce(t *testing.T) {
	e := newEnv(t)
	newPod(e, "p")
	newPod(e, "q")
	binding := func(pod, node string) string {
		return `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"` + pod + `","annotations":{"a":"b"}},"target":{"kind":"Node","name":"` + node + `"}}`
	}
	got := e.mustDo("POST", podsPath+"/p/binding", binding("p", "n1"), http.StatusCreated)
	if got["status"] != "Success" {
		t.Fatalf("binding answered %v", got)
	}
	pod := e.mustDo("GET", podsPath+"/p", "", http.StatusOK)
	if at(pod, "spec.nodeName") != "n1" || at(pod, "metadata.annotations.a") != "b" {
		t.Fatalf("pod after binding: %v", pod)
	}
	conds, _ := at(pod, "status.conditions").([]any)
	if len(conds) != 1 || at(conds[0].(map[string]any), "type") != "PodScheduled" || at(conds[0].(map[string]any), "status") != "True" {
		t.Fatalf("conditions after binding: %v", conds)
	}
	// The bindings resource names the pod in the body.
	e.mustDo("POST", "/api/v1/namespaces/ns/bindings", binding("q", "n2"), http.StatusCreated)
	if at(e.mustDo("GET", podsPath+"/q", "", http.StatusOK), "spec.nodeName") != "n2" {
		t.Fatal("bindings did not bind q")
	}

	before := e.etcdState()
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{podsPath + "/p/binding", binding("p", "n2"), http.StatusConflict},          // already bound
		{podsPath + "/p/binding", binding("q", "n2"), http.StatusBadRequest},        // name mismatch
		{podsPath + "/r/binding", binding("r", "n2"), http.StatusNotFound},          // no such pod
		{podsPath + "/p/binding", `{"kind":"Binding",`, http.StatusBadRequest},      // malformed
		{podsPath + "/q/binding", binding("q", ""), http.StatusUnprocessableEntity}, // no node
		{"/api/v1/namespaces/ns/bindings/q", binding("q", "n2"), http.StatusMethodNotAllowed},
	} {
		method := "POST"
		if c.code == http.StatusMethodNotAllowed {
			method = "PUT"
		}
		if resp, data := e.do(method, c.path, c.body); resp.StatusCode != c.code {
			t.Errorf("%s %s %s: %d, want %d: %s", method, c.path, c.body, resp.StatusCode, c.code, data)
		}
	}
	e.untouched(before, "refused bindings")
}
