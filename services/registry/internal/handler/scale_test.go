package handler

import (
	"fmt"
	"net/http"
	"testing"
)

// TestScaleSubresource reads and writes a Deployment's replicas through
// its autoscaling/v1 Scale, as kubectl scale does.
func TestScaleSubresource(t *testing.T) {
	e := newEnv(t)
	d := e.mustDo("POST", deployPath, deployment("d", 2, "nginx:1"), http.StatusCreated)
	scalePath := deployPath + "/d/scale"

	s := e.mustDo("GET", scalePath, "", http.StatusOK)
	if str(s, "kind") != "Scale" || str(s, "apiVersion") != "autoscaling/v1" || str(s, "spec.replicas") != "2" ||
		str(s, "status.selector") != "app=d" || str(s, "metadata.resourceVersion") != str(d, "metadata.resourceVersion") {
		t.Fatalf("scale = %v", s)
	}

	// kubectl scale sends a merge patch.
	s = e.mustDo("PATCH", scalePath, `{"spec":{"replicas":5}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	if str(s, "spec.replicas") != "5" {
		t.Errorf("patched scale = %v", s)
	}
	got := e.mustDo("GET", deployPath+"/d", "", http.StatusOK)
	if str(got, "spec.replicas") != "5" || str(got, "metadata.generation") != "2" {
		t.Errorf("deployment after scale: replicas %s generation %s, want 5 and 2", str(got, "spec.replicas"), str(got, "metadata.generation"))
	}

	put := fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d","namespace":"ns","resourceVersion":%q},"spec":{"replicas":1}}`,
		str(got, "metadata.resourceVersion"))
	if s = e.mustDo("PUT", scalePath, put, http.StatusOK); str(s, "spec.replicas") != "1" {
		t.Errorf("updated scale = %v", s)
	}
}

// TestScaleBadRequestsChangeNothing: stale, negative and malformed scales
// are refused with kube's codes and leave etcd as it was.
func TestScaleBadRequestsChangeNothing(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", deployPath, deployment("d", 2, "nginx:1"), http.StatusCreated)
	scalePath := deployPath + "/d/scale"
	cases := []struct {
		name, method, path, ct, body string
		code                         int
	}{
		{"stale resourceVersion", "PUT", scalePath, "application/json",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d","resourceVersion":"1"},"spec":{"replicas":3}}`, 409},
		{"negative replicas", "PATCH", scalePath, "application/merge-patch+json", `{"spec":{"replicas":-1}}`, 422},
		{"malformed body", "PUT", scalePath, "application/json", `{"spec":`, 400},
		{"wrong field type", "PATCH", scalePath, "application/merge-patch+json", `{"spec":{"replicas":"many"}}`, 400},
		{"no such deployment", "PATCH", deployPath + "/none/scale", "application/merge-patch+json", `{"spec":{"replicas":1}}`, 404},
		{"no scale on configmaps", "GET", cmPath + "/x/scale", "", "", 404},
	}
	for _, c := range cases {
		before := e.etcdState()
		resp, body := e.do(c.method, c.path, c.body, "Content-Type", c.ct)
		if resp.StatusCode != c.code {
			t.Errorf("%s: %d, want %d: %s", c.name, resp.StatusCode, c.code, body)
		}
		e.untouched(before, c.name)
	}
}
