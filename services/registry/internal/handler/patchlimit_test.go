package handler

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

const (
	jsonPatchCT  = "application/json-patch+json"
	mergePatchCT = "application/merge-patch+json"
	smpCT        = "application/strategic-merge-patch+json"
)

// copies is a JSON patch copying /data into /data/c1, /data/c2, ...: each
// copy doubles the ConfigMap's data. With remove, it removes them again,
// so the object it ends with is the one it started from.
func copies(n int, remove bool) string {
	var ops []string
	for i := 1; i <= n; i++ {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i))
	}
	for i := n; remove && i >= 1; i-- {
		ops = append(ops, fmt.Sprintf(`{"op":"remove","path":"/data/c%d"}`, i))
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// patchRefused sends a patch that must be refused with code, quickly,
// allocating well under a gigabyte and leaving etcd as it was.
func patchRefused(e *env, path, body, contentType string, code int, msg string) {
	e.t.Helper()
	writeRefused(e, "PATCH", path, body, contentType, code, msg)
}

// writeRefused is patchRefused for any method.
func writeRefused(e *env, method, path, body, contentType string, code int, msg string) {
	e.t.Helper()
	before := e.etcdState()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	allocated := mem.TotalAlloc
	start := time.Now()
	resp, data := e.do(method, path, body, "Content-Type", contentType)
	took := time.Since(start)
	runtime.ReadMemStats(&mem)
	allocated = mem.TotalAlloc - allocated
	if resp.StatusCode != code || !strings.Contains(string(data), msg) {
		e.t.Fatalf("%s %s (%d bytes): %d, want %d with %q: %.300s", method, path, len(body), resp.StatusCode, code, msg, data)
	}
	if took > 10*time.Second || allocated > 512<<20 {
		e.t.Errorf("%s %s took %v and allocated %d MB", method, path, took, allocated>>20)
	}
	e.t.Logf("%s %s refused in %v, %d MB allocated", method, path, took, allocated>>20)
	e.untouched(before, "a refused "+method)
}

func TestJSONPatchCopiesAreBounded(t *testing.T) {
	e := newEnv(t)
	path := cmPath + "/doubling"
	e.mustDo("POST", cmPath, `{"metadata":{"name":"doubling"},"data":{"k":"`+strings.Repeat("x", 100)+`"}}`, http.StatusCreated)
	const refused = "accumulated size increase of copy"

	// Doubling 100 bytes 17 times copies 13 MB on the way to an object no
	// larger than the one it started from: the bound is on the work, not
	// only the result. This case is cheap even without the bound, so it
	// runs first and stops the test before the 40-copy patch could.
	patchRefused(e, path, copies(17, true), jsonPatchCT, http.StatusRequestEntityTooLarge, refused)

	// The 1.7 KB patch that would ask for terabytes, applied for real and
	// as a dry run.
	patch := copies(40, false)
	if len(patch) > 2000 {
		t.Fatalf("the patch is %d bytes", len(patch))
	}
	patchRefused(e, path, patch, jsonPatchCT, http.StatusRequestEntityTooLarge, refused)
	patchRefused(e, path+"?dryRun=All", patch, jsonPatchCT, http.StatusRequestEntityTooLarge, refused)

	// Copies that stay within the bound still apply.
	patched := e.mustDo("PATCH", path, `[{"op":"copy","from":"/data/k","path":"/data/k2"}]`, http.StatusOK, "Content-Type", jsonPatchCT)
	if str(patched, "data.k2") != strings.Repeat("x", 100) {
		t.Fatalf("data after a small copy: %v", at(patched, "data"))
	}
}

// A patch of any type that would make an object larger than a request may
// carry is refused before the object is decoded, admitted or stored.
func TestPatchResultIsBounded(t *testing.T) {
	e := newEnv(t)
	path := cmPath + "/large"
	e.mustDo("POST", cmPath, `{"metadata":{"name":"large"},"data":{"a":"`+strings.Repeat("a", 512<<10)+`"}}`, http.StatusCreated)
	value := strings.Repeat("b", 2816<<10) // 2.75 MiB: the body fits, the result does not
	const refused = "more than the limit of 3145728"
	patchRefused(e, path, `{"data":{"b":"`+value+`"}}`, mergePatchCT, http.StatusRequestEntityTooLarge, refused)
	patchRefused(e, path, `{"data":{"b":"`+value+`"}}`, smpCT, http.StatusRequestEntityTooLarge, refused)
	patchRefused(e, path+"?dryRun=All", `[{"op":"add","path":"/data/b","value":"`+value+`"}]`, jsonPatchCT, http.StatusRequestEntityTooLarge, refused)

	// A patch that keeps the object within the bound applies.
	patched := e.mustDo("PATCH", path, `{"data":{"b":"`+strings.Repeat("b", 1<<10)+`"}}`, http.StatusOK, "Content-Type", mergePatchCT)
	if len(str(patched, "data.b")) != 1<<10 {
		t.Fatalf("data.b is %d bytes", len(str(patched, "data.b")))
	}
}

// YAML aliases repeat their anchor's value: an apply body of a few
// kilobytes can expand to gigabytes of JSON. It is refused before it is
// expanded.
func TestApplyYAMLAliasesAreBounded(t *testing.T) {
	e := newEnv(t)
	path := cmPath + "/aliases?fieldManager=m"
	doc := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliases\ndata:\n" + data
	}

	// 64 KiB repeated 100 times: a 65 KB body making a 6.5 MB object.
	var flat strings.Builder
	flat.WriteString("  a: &v " + strings.Repeat("x", 64<<10) + "\n")
	for i := range 100 {
		fmt.Fprintf(&flat, "  k%d: *v\n", i)
	}
	patchRefused(e, path, doc(flat.String()), applyCT, http.StatusRequestEntityTooLarge, "expands its aliases")

	// Anchors nested ten deep, ten aliases each: 10^10 copies of a string,
	// from a body under 2 KB.
	var nested strings.Builder
	nested.WriteString("l0: &l0 [" + strings.Repeat("x", 100) + "]\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&nested, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliases\n" + nested.String()
	patchRefused(e, path, body, applyCT, http.StatusRequestEntityTooLarge, "expands its aliases")
	// A create or update in YAML is read the same way.
	writeRefused(e, "POST", cmPath, doc(flat.String()), "application/yaml", http.StatusRequestEntityTooLarge, "expands its aliases")
	writeRefused(e, "PUT", cmPath+"/aliases", doc(flat.String()), "application/yaml", http.StatusRequestEntityTooLarge, "expands its aliases")

	// An anchor containing itself expands forever.
	patchRefused(e, path, doc("  a: &a [*a]\n"), applyCT, http.StatusRequestEntityTooLarge, "expands its aliases")

	// Aliases within the bound are applied as written.
	applied := e.mustDo("PATCH", path, doc("  a: &v shared\n  b: *v\n"), http.StatusCreated, "Content-Type", applyCT)
	if str(applied, "data.a") != "shared" || str(applied, "data.b") != "shared" {
		t.Fatalf("data after an apply with an alias: %v", at(applied, "data"))
	}
}

// A strategic merge patch sorts each list it merges in about n² steps:
// 5,000 containers would take seconds of CPU (and the 100,000 a 3 MiB
// patch holds, an hour). It is refused before any merging.
func TestStrategicMergePatchListWorkIsBounded(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", deployPath, deployment("d", 1, "nginx:1"), http.StatusCreated)
	containers := func(n int) string {
		var list []string
		for i := range n {
			list = append(list, fmt.Sprintf(`{"name":"c%d","image":"x"}`, i))
		}
		return `{"spec":{"template":{"spec":{"containers":[` + strings.Join(list, ",") + `]}}}}`
	}
	patchRefused(e, deployPath+"/d", containers(5000), smpCT, http.StatusRequestEntityTooLarge, "lists too long to merge")

	// Lists of the sizes objects have merge as before.
	patched := e.mustDo("PATCH", deployPath+"/d", containers(100), http.StatusOK, "Content-Type", smpCT)
	if n := len(at(patched, "spec.template.spec.containers").([]any)); n != 101 {
		t.Fatalf("%d containers after merging 100 into 1", n)
	}
}
