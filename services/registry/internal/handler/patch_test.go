package handler

import (
	"net/http"
	"strings"
	"testing"
)

const applyCT = "application/apply-patch+yaml"

// managers returns each manager's operation and the fields it owns.
func managers(obj map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := at(obj, "metadata.managedFields").([]any)
	for _, entry := range list {
		m := entry.(map[string]any)
		out[str(m, "manager")] = str(m, "operation") + " " + str(m, "fieldsV1")
	}
	return out
}

func TestServerSideApply(t *testing.T) {
	e := newEnv(t)
	path := cmPath + "/ssa"
	doc := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n" + data
	}
	created := e.mustDo("PATCH", path+"?fieldManager=alice", doc("  a: \"1\"\n  shared: x\n"), http.StatusCreated, "Content-Type", applyCT)
	if str(created, "data.a") != "1" || str(created, "metadata.uid") == "" {
		t.Fatalf("apply created %v", created)
	}
	if m := managers(created)["alice"]; !strings.HasPrefix(m, "Apply ") || !strings.Contains(m, "f:a") {
		t.Fatalf("managedFields after create: %v", managers(created))
	}

	// Another manager setting alice's field to another value conflicts.
	before := e.etcdState()
	resp, data := e.do("PATCH", path+"?fieldManager=bob", doc("  a: \"2\"\n"), "Content-Type", applyCT)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(data), `"reason":"Conflict"`) ||
		!strings.Contains(string(data), "alice") || !strings.Contains(string(data), ".data.a") {
		t.Fatalf("conflicting apply: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a conflicting apply")
	// Agreeing on a value is no conflict: both own it.
	agreed := e.mustDo("PATCH", path+"?fieldManager=bob", doc("  shared: x\n"), http.StatusOK, "Content-Type", applyCT)
	if m := managers(agreed); !strings.Contains(m["bob"], "f:shared") || !strings.Contains(m["alice"], "f:shared") {
		t.Fatalf("shared ownership: %v", m)
	}

	forced := e.mustDo("PATCH", path+"?fieldManager=bob&force=true", doc("  a: \"2\"\n  shared: x\n"), http.StatusOK, "Content-Type", applyCT)
	m := managers(forced)
	if str(forced, "data.a") != "2" || !strings.Contains(m["bob"], "f:a") || strings.Contains(m["alice"], "f:a") {
		t.Fatalf("forced apply: data %v, managers %v", at(forced, "data"), m)
	}
	// An update by PUT is recorded as an Update by its manager.
	updated := put(e, path+"?fieldManager=carol", forced, func(o map[string]any) { set(o, "c", "data", "c") })
	if m := managers(updated)["carol"]; !strings.HasPrefix(m, "Update ") || !strings.Contains(m, "f:c") {
		t.Fatalf("managedFields after PUT: %v", managers(updated))
	}
	// A field bob stops applying, and nobody else owns, goes.
	dropped := e.mustDo("PATCH", path+"?fieldManager=bob", doc("  shared: x\n"), http.StatusOK, "Content-Type", applyCT)
	if at(dropped, "data.a") != nil || str(dropped, "data.shared") != "x" || str(dropped, "data.c") != "c" {
		t.Fatalf("after bob stopped applying a: %v", at(dropped, "data"))
	}
}

// Applying the same Deployment again, with a label added, is no spec change.
func TestApplyDeploymentKeepsGeneration(t *testing.T) {
	e := newEnv(t)
	path := deployPath + "/d"
	body := strings.Replace(deployment("d", 1, "nginx:1"), `"metadata":{"name":"d"}`, `"metadata":{"name":"d","labels":{"v":"%s"}}`, 1)
	first := e.mustDo("PATCH", path+"?fieldManager=m", strings.Replace(body, "%s", "1", 1), http.StatusCreated, "Content-Type", applyCT)
	second := e.mustDo("PATCH", path+"?fieldManager=m", strings.Replace(body, "%s", "2", 1), http.StatusOK, "Content-Type", applyCT)
	if at(first, "metadata.generation") != float64(1) || at(second, "metadata.generation") != float64(1) || str(second, "metadata.labels.v") != "2" {
		t.Fatalf("generation %v then %v, labels %v", at(first, "metadata.generation"), at(second, "metadata.generation"), at(second, "metadata.labels"))
	}
}

// A strategic merge patch merges a Deployment's containers by name, where
// a merge patch replaces the list.
func TestStrategicMergePatchMergesContainersByName(t *testing.T) {
	e := newEnv(t)
	path := deployPath + "/d"
	body := strings.Replace(deployment("d", 1, "nginx:1"), `"image":"nginx:1"}]`, `"image":"nginx:1"},{"name":"sidecar","image":"busybox:1"}]`, 1)
	e.mustDo("POST", deployPath, body, http.StatusCreated)
	const smp = "application/strategic-merge-patch+json"
	images := func(obj map[string]any) string {
		var out []string
		for _, c := range at(obj, "spec.template.spec.containers").([]any) {
			out = append(out, str(c.(map[string]any), "name")+"="+str(c.(map[string]any), "image"))
		}
		return strings.Join(out, ",")
	}
	patched := e.mustDo("PATCH", path, `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:2"}]}}}}`, http.StatusOK, "Content-Type", smp)
	if got := images(patched); got != "app=nginx:1,sidecar=busybox:2" {
		t.Fatalf("containers after strategic merge patch: %s", got)
	}
	patched = e.mustDo("PATCH", path, `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`, http.StatusOK, "Content-Type", smp)
	if got := images(patched); got != "app=nginx:1" {
		t.Fatalf("containers after a delete directive: %s", got)
	}
	patched = e.mustDo("PATCH", path, `{"spec":{"template":{"spec":{"containers":[{"name":"other","image":"redis:7"}]}}}}`, http.StatusOK,
		"Content-Type", "application/merge-patch+json")
	if got := images(patched); got != "other=redis:7" {
		t.Fatalf("containers after a merge patch: %s", got)
	}
}
