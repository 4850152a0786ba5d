package handler

import (
	"net/http"
	"strings"
	"testing"
)

func init() {
	for k, v := range map[string]string{
		"scheduling.k8s.io/priorityclasses": `{"value":1000}`,
	} {
		kindSamples[k] = v
	}
}

// A system PriorityClass is not deleted (kube's 403, nothing changed); an
// ordinary one is.
func TestSystemPriorityClassesAreKept(t *testing.T) {
	e := newEnv(t)
	path := "/apis/scheduling.k8s.io/v1/priorityclasses"
	e.mustDo("POST", path, `{"metadata":{"name":"system-node-critical"},"value":2000001000}`, http.StatusCreated)
	e.mustDo("POST", path, `{"metadata":{"name":"batch"},"value":10}`, http.StatusCreated)
	before := e.etcdState()
	resp, data := e.do("DELETE", path+"/system-node-critical", "")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(data), "this is a system priority class and cannot be deleted") {
		t.Fatalf("deleting system-node-critical: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused delete of a system PriorityClass")
	e.mustDo("DELETE", path+"/batch", "", http.StatusOK)
}
