package handler

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestCreateSetsServerOwnedFields(t *testing.T) {
	e := newEnv(t)
	before := time.Now().Add(-time.Second)
	body := `{"metadata":{"generateName":"gen-","uid":"client-uid","creationTimestamp":"2000-01-01T00:00:00Z"},"data":{"k":"v"}}`
	a := e.mustDo("POST", cmPath, body, http.StatusCreated)
	b := e.mustDo("POST", cmPath, body, http.StatusCreated)
	name := str(a, "metadata.name")
	if !strings.HasPrefix(name, "gen-") || len(name) != len("gen-")+5 || name == str(b, "metadata.name") {
		t.Fatalf("generated names %q and %q", name, str(b, "metadata.name"))
	}
	if _, err := uuid.Parse(str(a, "metadata.uid")); err != nil || str(a, "metadata.uid") == str(b, "metadata.uid") {
		t.Fatalf("uids %q and %q", str(a, "metadata.uid"), str(b, "metadata.uid"))
	}
	created, err := time.Parse(time.RFC3339, str(a, "metadata.creationTimestamp"))
	if err != nil || created.Before(before) || created.After(time.Now().Add(time.Second)) {
		t.Fatalf("creationTimestamp %q", str(a, "metadata.creationTimestamp"))
	}
	rv := strconv.FormatInt(e.modRev("/registry/core/configmaps/ns/"+name), 10)
	if str(a, "metadata.resourceVersion") != rv {
		t.Fatalf("resourceVersion %s, etcd mod revision %s", str(a, "metadata.resourceVersion"), rv)
	}
	got := e.mustDo("GET", cmPath+"/"+name, "", http.StatusOK)
	if str(got, "metadata.uid") != str(a, "metadata.uid") || str(got, "metadata.resourceVersion") != rv || str(got, "data.k") != "v" {
		t.Fatalf("get returned %v", got)
	}
}

func TestFieldValidation(t *testing.T) {
	e := newEnv(t)
	unknown := `{"metadata":{"name":"%s"},"data":{"k":"v"},"bogus":1}`
	duplicate := `{"metadata":{"name":"%s"},"data":{"a":"1"},"data":{"b":"2"}}`
	for _, c := range []struct {
		body, mode string
		code       int
		warning    string
	}{
		{unknown, "Strict", http.StatusBadRequest, ""},
		{unknown, "Warn", http.StatusCreated, `unknown field \"bogus\"`},
		{unknown, "", http.StatusCreated, `unknown field \"bogus\"`},
		{unknown, "Ignore", http.StatusCreated, ""},
		{duplicate, "Strict", http.StatusBadRequest, ""},
		{duplicate, "Warn", http.StatusCreated, `duplicate field \"data\"`},
	} {
		name := "m" + strings.ToLower(c.mode) + "-" + strconv.Itoa(len(c.body))
		query := ""
		if c.mode != "" {
			query = "?fieldValidation=" + c.mode
		}
		before := e.etcdState()
		resp, data := e.do("POST", cmPath+query, strings.ReplaceAll(c.body, "%s", name))
		if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d: %s", c.mode, c.body, resp.StatusCode, c.code, data)
			continue
		}
		warning := strings.Join(resp.Header.Values("Warning"), "; ")
		if (c.warning == "") != (warning == "") || !strings.Contains(warning, c.warning) {
			t.Errorf("%s %s: Warning %q, want %q", c.mode, c.body, warning, c.warning)
		}
		if c.code != http.StatusCreated {
			e.untouched(before, "a create refused by fieldValidation=Strict")
		}
	}
	e.mustDo("POST", cmPath, `{"metadata":{"name":"existing"}}`, http.StatusCreated)
	before := e.etcdState()
	resp, data := e.do("PUT", cmPath+"/existing?fieldValidation=Strict", `{"metadata":{"name":"existing"},"bogus":true}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("strict PUT with an unknown field: %d %s", resp.StatusCode, data)
	}
	resp, data = e.do("PATCH", cmPath+"/existing?fieldValidation=Strict", `{"bogus":true}`, "Content-Type", "application/merge-patch+json")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("strict merge patch adding an unknown field: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "strict update and patch with unknown fields")
}

func TestDryRunWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"},"data":{"k":"1"}}`, http.StatusCreated)
	before := e.etcdState()
	created := e.mustDo("POST", cmPath+"?dryRun=All", `{"metadata":{"name":"b"},"data":{"k":"1"}}`, http.StatusCreated)
	if str(created, "metadata.name") != "b" || str(created, "metadata.uid") == "" {
		t.Errorf("dry-run create answered %v", created)
	}
	updated := e.mustDo("PUT", cmPath+"/a?dryRun=All", `{"metadata":{"name":"a"},"data":{"k":"2"}}`, http.StatusOK)
	if str(updated, "data.k") != "2" {
		t.Errorf("dry-run update answered %v", updated)
	}
	e.mustDo("PATCH", cmPath+"/a?dryRun=All", `{"data":{"k":"3"}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	// kube's dry run never reaches the storage that refuses a set
	// resourceVersion: it answers 201, as for any valid create.
	e.mustDo("POST", cmPath+"?dryRun=All", `{"metadata":{"name":"d","resourceVersion":"5"}}`, http.StatusCreated)
	e.mustDo("PATCH", cmPath+"/c?dryRun=All&fieldManager=m", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", http.StatusCreated,
		"Content-Type", "application/apply-patch+yaml")
	e.mustDo("DELETE", cmPath+"/a?dryRun=All", "", http.StatusOK)
	e.mustDo("DELETE", cmPath+"?dryRun=All", "", http.StatusOK)
	e.untouched(before, "dryRun=All")
	e.mustDo("GET", cmPath+"/b", "", http.StatusNotFound)
	if got := e.mustDo("GET", cmPath+"/a", "", http.StatusOK); str(got, "data.k") != "1" {
		t.Errorf("after dry runs a holds %v", got)
	}
}

// Every malformed, oversized or conflicting request gets a 4xx Status and
// leaves etcd as it was.
func TestBadRequestsChangeNothing(t *testing.T) {
	e := newEnv(t)
	cur := e.mustDo("POST", cmPath, `{"metadata":{"name":"a"},"data":{"k":"1"}}`, http.StatusCreated)
	e.mustDo("PUT", cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"2"}}`, http.StatusOK)
	stale := str(cur, "metadata.resourceVersion")
	e.mustDo("POST", deployPath, deployment("d", 1, "nginx:1"), http.StatusCreated)
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	huge := `{"metadata":{"name":"huge"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`
	manyOps := "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/kind","value":"ConfigMap"},`, 10001), ",") + "]"
	const (
		jsonCT  = "application/json"
		yamlCT  = "application/yaml"
		mergeCT = "application/merge-patch+json"
		jsonPCT = "application/json-patch+json"
		smpCT   = "application/strategic-merge-patch+json"
		applyCT = "application/apply-patch+yaml"
	)
	for _, c := range []struct {
		name, method, path, ct, body string
		code                         int
	}{
		{"malformed JSON", "POST", cmPath, jsonCT, `{"metadata":`, 400},
		{"not an object", "POST", cmPath, jsonCT, `[1,2]`, 400},
		{"malformed YAML", "POST", cmPath, yamlCT, "metadata: [\n", 400},
		{"wrong kind", "POST", cmPath, jsonCT, `{"kind":"Secret","metadata":{"name":"x"}}`, 400},
		{"wrong apiVersion", "POST", cmPath, jsonCT, `{"apiVersion":"apps/v1","metadata":{"name":"x"}}`, 400},
		{"create naming a resourceVersion", "POST", cmPath, jsonCT, `{"metadata":{"name":"x","resourceVersion":"5"}}`, 400},
		{"wrong field type", "POST", cmPath, jsonCT, `{"metadata":{"name":"x"},"data":{"k":1}}`, 400},
		{"too deep", "POST", cmPath, jsonCT, `{"metadata":{"name":"x"},"data":` + deep + `}`, 400},
		{"too large", "POST", cmPath, jsonCT, huge, 413},
		{"unsupported media type", "POST", cmPath, "text/plain", `{"metadata":{"name":"x"}}`, 415},
		{"invalid name", "POST", cmPath, jsonCT, `{"metadata":{"name":"Not_Valid"}}`, 422},
		{"no name", "POST", cmPath, jsonCT, `{"data":{"k":"v"}}`, 422},
		{"namespace mismatch", "POST", cmPath, jsonCT, `{"metadata":{"name":"x","namespace":"other"}}`, 400},
		{"missing namespace", "POST", "/api/v1/namespaces/nowhere/configmaps", jsonCT, `{"metadata":{"name":"x"}}`, 404},
		{"already exists", "POST", cmPath, jsonCT, `{"metadata":{"name":"a"}}`, 409},
		{"bad fieldValidation", "POST", cmPath + "?fieldValidation=Loose", jsonCT, `{"metadata":{"name":"x"}}`, 422},
		{"bad dryRun", "POST", cmPath + "?dryRun=Some", jsonCT, `{"metadata":{"name":"x"}}`, 422},
		{"invalid deployment", "POST", deployPath, jsonCT, `{"metadata":{"name":"bad"},"spec":{"replicas":-1}}`, 422},
		{"stale resourceVersion", "PUT", cmPath + "/a", jsonCT, `{"metadata":{"name":"a","resourceVersion":"` + stale + `"},"data":{"k":"3"}}`, 409},
		{"uid mismatch", "PUT", cmPath + "/a", jsonCT, `{"metadata":{"name":"a","uid":"not-the-uid"},"data":{"k":"3"}}`, 409},
		{"name mismatch", "PUT", cmPath + "/a", jsonCT, `{"metadata":{"name":"b"},"data":{"k":"3"}}`, 400},
		{"update of missing", "PUT", cmPath + "/missing", jsonCT, `{"metadata":{"name":"missing"}}`, 404},
		{"update oversized", "PUT", cmPath + "/a", jsonCT, strings.Replace(huge, `"huge"`, `"a"`, 1), 413},
		{"malformed update", "PUT", cmPath + "/a", jsonCT, `{"metadata":{"name":"a"`, 400},
		{"selector change", "PUT", deployPath + "/d", jsonCT, strings.Replace(deployment("d", 1, "nginx:1"), `"app":"d"}}`, `"app":"other"}}`, 1), 422},
		{"merge patch malformed", "PATCH", cmPath + "/a", mergeCT, `{"data":`, 400},
		{"merge patch renames", "PATCH", cmPath + "/a", mergeCT, `{"metadata":{"name":"b"}}`, 400},
		{"merge patch stale", "PATCH", cmPath + "/a", mergeCT, `{"metadata":{"resourceVersion":"` + stale + `"},"data":{"k":"4"}}`, 409},
		{"merge patch wrong type", "PATCH", cmPath + "/a", mergeCT, `{"data":"nope"}`, 400},
		{"json patch test fails", "PATCH", cmPath + "/a", jsonPCT, `[{"op":"test","path":"/data/k","value":"9"},{"op":"replace","path":"/data/k","value":"5"}]`, 422},
		{"json patch malformed", "PATCH", cmPath + "/a", jsonPCT, `[{"op":"jump"}`, 400},
		{"json patch too many ops", "PATCH", cmPath + "/a", jsonPCT, manyOps, 413},
		{"strategic patch malformed", "PATCH", deployPath + "/d", smpCT, `{"spec":`, 400},
		{"patch of missing", "PATCH", cmPath + "/missing", mergeCT, `{"data":{"k":"v"}}`, 404},
		{"patch unsupported type", "PATCH", cmPath + "/a", "text/plain", `{}`, 415},
		{"merge patch too large", "PATCH", cmPath + "/a", mergeCT, `{"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`, 413},
		{"merge patch too deep", "PATCH", cmPath + "/a", mergeCT, `{"data":` + deep + `}`, 400},
		{"yaml too deep", "POST", cmPath, yamlCT, "metadata:\n  name: x\ndata: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", 400},
		{"apply too large", "PATCH", cmPath + "/a?fieldManager=m", applyCT, "metadata:\n  name: a\ndata:\n  k: " + strings.Repeat("x", 3<<20) + "\n", 413},
		{"apply too deep", "PATCH", cmPath + "/a?fieldManager=m", applyCT, `{"metadata":{"name":"a"},"data":` + deep + `}`, 400},
		{"apply without manager", "PATCH", cmPath + "/a", applyCT, "metadata:\n  name: a\n", 422},
		{"apply malformed", "PATCH", cmPath + "/a?fieldManager=m", applyCT, "metadata: [\n", 400},
		{"apply renames", "PATCH", cmPath + "/a?fieldManager=m", applyCT, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n", 400},
		{"delete stale precondition", "DELETE", cmPath + "/a", jsonCT, `{"preconditions":{"resourceVersion":"` + stale + `"}}`, 409},
		{"delete bad options", "DELETE", cmPath + "/a", jsonCT, `{"propagationPolicy":"Sometimes"}`, 422},
		{"delete malformed options", "DELETE", cmPath + "/a", jsonCT, `{"preconditions":`, 400},
		{"delete of missing", "DELETE", cmPath + "/missing", jsonCT, "", 404},
		{"deletecollection bad selector", "DELETE", cmPath + "?labelSelector=a%3D%3D%3Db", jsonCT, "", 400},
		{"unknown resource", "POST", "/api/v1/namespaces/ns/widgets", jsonCT, `{}`, 404},
		{"unknown subresource", "PUT", cmPath + "/a/status", jsonCT, `{"metadata":{"name":"a"}}`, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.etcdState()
			resp, data := e.do(c.method, c.path, c.body, "Content-Type", c.ct)
			if resp.StatusCode != c.code {
				t.Errorf("%d, want %d: %.300s", resp.StatusCode, c.code, data)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(string(data), `"kind":"Status"`) {
				t.Errorf("error body is not a Status (%s): %.300s", ct, data)
			}
			e.untouched(before, c.name)
		})
	}
}
