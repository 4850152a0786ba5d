package handler

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const claimRequest = `{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}`

func init() {
	for k, v := range map[string]string{
		"resource.k8s.io/deviceclasses":          `{"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}}`,
		"resource.k8s.io/devicetaintrules":       `{"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"example.com/broken","effect":"NoSchedule"}}}`,
		"resource.k8s.io/resourceclaims":         `{"spec":` + claimRequest + `}`,
		"resource.k8s.io/resourceclaimtemplates": `{"spec":{"spec":` + claimRequest + `}}`,
		"resource.k8s.io/resourceslices": `{"spec":{"driver":"gpu.example.com","nodeName":"n1",` +
			`"pool":{"name":"n1","generation":1,"resourceSliceCount":1},"devices":[{"name":"gpu-0"}]}}`,
	} {
		kindSamples[k] = v
	}
}

// What kube's DRA strategies ask beyond the object, answered as kube
// answers it: admin access to devices only in a namespace labelled for it
// (kube reads the namespace's admin-access label; here from the registry's
// namespaces), and a claim's allocation only by whom authz lets bind
// claims (kube asks about resourceclaims/binding; without an authorizer,
// only system:masters).
func TestResourceClaimChecksAskBeyondTheObject(t *testing.T) {
	e := newEnv(t)
	claims := builtin(t, "resource.k8s.io", "resourceclaims")
	path := resourcePath(claims, "ns")
	adminRequest := `{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","adminAccess":true}}]}}`
	admin := map[string]string{
		path: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"admin"},"spec":` + adminRequest + `}`,
		resourcePath(builtin(t, "resource.k8s.io", "resourceclaimtemplates"), "ns"): `{"apiVersion":"resource.k8s.io/v1",` +
			`"kind":"ResourceClaimTemplate","metadata":{"name":"admin"},"spec":{"spec":` + adminRequest + `}}`,
	}
	before := e.etcdState()
	for p, body := range admin {
		resp, out := e.do("POST", p, body)
		if resp.StatusCode != http.StatusUnprocessableEntity ||
			!strings.Contains(string(out), "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace") {
			t.Errorf("admin access in an unlabelled namespace, %s: %d %s", p, resp.StatusCode, out)
		}
	}
	e.untouched(before, "admin access refused")
	e.mustDo("PATCH", "/api/v1/namespaces/ns", `{"metadata":{"labels":{"resource.kubernetes.io/admin-access":"true"}}}`, http.StatusOK,
		"Content-Type", "application/merge-patch+json")
	for p, body := range admin {
		e.mustDo("POST", p, body, http.StatusCreated)
	}

	body, _ := sample(t, claims, "claim")
	created := e.mustDo("POST", path, body, http.StatusCreated)
	created["status"] = map[string]any{"allocation": map[string]any{"devices": map[string]any{"results": []any{
		map[string]any{"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}}}}}
	next, _ := json.Marshal(created)
	resp, out := e.do("PUT", path+"/claim/status", string(next), "X-Test-User", "system:kube-scheduler")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(out), `resource=\"resourceclaims/binding\"`) {
		t.Errorf("allocation by the scheduler: %d %s", resp.StatusCode, out)
	}

	if err := statusByMasters(claims, created, next); err != nil {
		t.Errorf("allocation by system:masters refused: %v", err)
	}
}
