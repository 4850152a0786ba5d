package handler

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runningPod makes a pod the budget protects: Running and Ready.
func runningPod(e *env, name string) {
	e.mustDo("POST", podsPath, `{"metadata":{"name":"`+name+`","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, http.StatusCreated)
	pod := e.mustDo("GET", podsPath+"/"+name, "", http.StatusOK)
	put(e, podsPath+"/"+name+"/status", pod, func(o map[string]any) {
		o["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	})
}

// protobufEviction is eviction(name) as client-go sends it in protobuf.
func protobufEviction(t *testing.T, name string) []byte {
	t.Helper()
	ev := &policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	var b bytes.Buffer
	if err := protobufSerializer.Encode(ev, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func eviction(name string) string {
	return `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `"}}`
}

// An eviction that would break the pod's budget is 429 and deletes
// nothing; one the budget allows takes a disruption and deletes the pod;
// a pod that is not running goes whatever its budget says.
func TestEvictionHonoursDisruptionBudgets(t *testing.T) {
	e := newEnv(t)
	runningPod(e, "a1")
	runningPod(e, "a2")
	pdbPath := "/apis/policy/v1/namespaces/ns/poddisruptionbudgets"
	pdb := e.mustDo("POST", pdbPath, `{"metadata":{"name":"b"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"a"}}}}`, http.StatusCreated)
	// What the disruption controller would write: both pods needed.
	pdb = put(e, pdbPath+"/b/status", pdb, func(o map[string]any) {
		o["status"] = map[string]any{"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2}
	})

	before := e.etcdState()
	resp, data := e.do("POST", podsPath+"/a1/eviction", eviction("a1"))
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(data), "needs 2 healthy pods and has 2 currently") {
		t.Fatalf("eviction against a spent budget: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused eviction")

	// As client-go's typed clients send it in protobuf (kube's e2e tests).
	resp, data = e.do("POST", podsPath+"/a1/eviction", string(protobufEviction(t, "a1")), "Content-Type", protobufMedia)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(data), "DisruptionBudget") {
		t.Fatalf("protobuf eviction against a spent budget: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused protobuf eviction")

	put(e, pdbPath+"/b/status", pdb, func(o map[string]any) { set(o, 1, "status", "disruptionsAllowed") })
	e.mustDo("POST", podsPath+"/a1/eviction", eviction("a1"), http.StatusCreated)
	e.mustDo("GET", podsPath+"/a1", "", http.StatusNotFound)
	after := e.mustDo("GET", pdbPath+"/b", "", http.StatusOK)
	if at(after, "status.disruptionsAllowed") != float64(0) || at(after, "status.disruptedPods.a1") == nil {
		t.Fatalf("budget after an eviction: %v", after["status"])
	}
	resp, _ = e.do("POST", podsPath+"/a2/eviction", eviction("a2"))
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second eviction: %d, want 429", resp.StatusCode)
	}

	newPod(e, "pending") // not running: no budget protects it
	e.mustDo("POST", podsPath+"/pending/eviction", eviction("pending"), http.StatusCreated)
	e.mustDo("GET", podsPath+"/pending", "", http.StatusNotFound)

	before = e.etcdState()
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{podsPath + "/a2/eviction", eviction("other"), http.StatusBadRequest},
		{podsPath + "/a2/eviction", `{"kind":`, http.StatusBadRequest},
		{podsPath + "/none/eviction", eviction("none"), http.StatusNotFound},
	} {
		if resp, data := e.do("POST", c.path, c.body); resp.StatusCode != c.code {
			t.Errorf("POST %s %s: %d, want %d: %s", c.path, c.body, resp.StatusCode, c.code, data)
		}
	}
	if resp, _ := e.do("GET", podsPath+"/a2/eviction", ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET eviction: %d, want 405", resp.StatusCode)
	}
	e.untouched(before, "bad evictions")
}
