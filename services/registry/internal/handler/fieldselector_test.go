package handler

import (
	"net/http"
	"strings"
	"testing"
)

// Field selectors are kube's for built-in kinds: the fields kube's
// GetAttrs computes (a boolean unset is "false", a Job's
// status.successful is status.succeeded or 0) and kube's refusal of any
// other field.
func TestFieldSelectorsAreKubes(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/nodes", `{"metadata":{"name":"n1"}}`, http.StatusCreated)
	e.mustDo("POST", "/api/v1/nodes", `{"metadata":{"name":"n2"},"spec":{"unschedulable":true}}`, http.StatusCreated)
	count := func(path string) int {
		t.Helper()
		items, _ := e.mustDo("GET", path, "", http.StatusOK)["items"].([]any)
		return len(items)
	}
	if n := count("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse"); n != 1 {
		t.Errorf("spec.unschedulable=false selected %d nodes, want the one without the field", n)
	}
	if n := count("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue"); n != 1 {
		t.Errorf("spec.unschedulable=true selected %d nodes", n)
	}
	e.mustDo("POST", "/apis/batch/v1/namespaces/ns/jobs", `{"metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`, http.StatusCreated)
	if n := count("/apis/batch/v1/namespaces/ns/jobs?fieldSelector=status.successful%3D0"); n != 1 {
		t.Errorf("status.successful=0 selected %d jobs", n)
	}
	resp, data := e.do("GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=data.k%3Dv", "")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(data), `\"data.k\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"`) {
		t.Errorf("unknown field: %d %s", resp.StatusCode, data)
	}
}
