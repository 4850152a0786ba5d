package handler

import (
	"net/http"
	"strings"
	"testing"
)

// A batch/v1 Job deleted without a propagation policy orphans its pods,
// as kube keeps for back compatibility, and says so in a warning; naming
// a policy overrides it.
func TestJobsOrphanTheirPodsByDefault(t *testing.T) {
	e := newEnv(t)
	jobs := "/apis/batch/v1/namespaces/ns/jobs"
	job := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`
	}
	e.mustDo("POST", jobs, job("j1"), http.StatusCreated)
	resp, data := e.do("DELETE", jobs+"/j1", "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), `"orphan"`) {
		t.Fatalf("default delete: %d %s", resp.StatusCode, data)
	}
	if w := resp.Header.Get("Warning"); !strings.Contains(w, "child pods are preserved by default") {
		t.Errorf("no orphan warning: %q", w)
	}
	e.mustDo("POST", jobs, job("j2"), http.StatusCreated)
	resp, data = e.do("DELETE", jobs+"/j2?propagationPolicy=Background", "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), `"Success"`) || resp.Header.Get("Warning") != "" {
		t.Fatalf("background delete: %d %q %s", resp.StatusCode, resp.Header.Get("Warning"), data)
	}
}
