package handler

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

func finalizers(obj map[string]any) []string {
	list, _ := at(obj, "metadata.finalizers").([]any)
	var out []string
	for _, f := range list {
		out = append(out, f.(string))
	}
	return out
}

// A finalizer holds a deleted object back, marked with deletionTimestamp,
// until an update removes the finalizer.
func TestDeleteWaitsForFinalizers(t *testing.T) {
	e := newEnv(t)
	key := "/registry/core/configmaps/ns/a"
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a","finalizers":["example.com/hold"]}}`, http.StatusCreated)
	marked := e.mustDo("DELETE", cmPath+"/a", "", http.StatusOK)
	if str(marked, "metadata.deletionTimestamp") == "" {
		t.Fatalf("DELETE answered %v, without deletionTimestamp", marked)
	}
	got := e.mustDo("GET", cmPath+"/a", "", http.StatusOK)
	if str(got, "metadata.deletionTimestamp") != str(marked, "metadata.deletionTimestamp") {
		t.Fatalf("stored object %v", got)
	}
	// Deleting again changes nothing; adding a finalizer is refused.
	before := e.etcdState()
	e.mustDo("DELETE", cmPath+"/a", "", http.StatusOK)
	e.mustDo("PATCH", cmPath+"/a", `{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}`, http.StatusUnprocessableEntity,
		"Content-Type", "application/merge-patch+json")
	e.untouched(before, "a second DELETE and a new finalizer on a deleted object")

	put(e, cmPath+"/a", got, func(o map[string]any) { set(o, []any{}, "metadata", "finalizers") })
	e.mustDo("GET", cmPath+"/a", "", http.StatusNotFound)
	if e.modRev(key) != 0 {
		t.Fatal("object still in etcd after its last finalizer went")
	}
}

func TestPropagationPolicyFinalizers(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		policy, finalizer string
	}{
		{"Foreground", "foregroundDeletion"},
		{"Orphan", "orphan"},
	} {
		name := strings.ToLower(c.policy)
		e.mustDo("POST", cmPath, `{"metadata":{"name":"`+name+`","finalizers":["example.com/hold"]}}`, http.StatusCreated)
		marked := e.mustDo("DELETE", cmPath+"/"+name+"?propagationPolicy="+c.policy, "", http.StatusOK)
		if f := finalizers(marked); !slices.Contains(f, c.finalizer) || !slices.Contains(f, "example.com/hold") || str(marked, "metadata.deletionTimestamp") == "" {
			t.Errorf("%s: finalizers %v, deletionTimestamp %q", c.policy, f, str(marked, "metadata.deletionTimestamp"))
		}
		// The same policy in the body of the DELETE.
		e.mustDo("POST", cmPath, `{"metadata":{"name":"`+name+`-body"}}`, http.StatusCreated)
		marked = e.mustDo("DELETE", cmPath+"/"+name+"-body", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"`+c.policy+`"}`, http.StatusOK)
		if f := finalizers(marked); len(f) != 1 || f[0] != c.finalizer {
			t.Errorf("%s in the body: finalizers %v", c.policy, f)
		}
		// Once the garbage collector removes its finalizer, the object goes.
		e.mustDo("PATCH", cmPath+"/"+name+"-body", `{"metadata":{"finalizers":null}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
		e.mustDo("GET", cmPath+"/"+name+"-body", "", http.StatusNotFound)
	}
	e.mustDo("POST", cmPath, `{"metadata":{"name":"background"}}`, http.StatusCreated)
	e.mustDo("DELETE", cmPath+"/background?propagationPolicy=Background", "", http.StatusOK)
	e.mustDo("GET", cmPath+"/background", "", http.StatusNotFound)
}

// Deleting a namespace turns it Terminating; it goes once its spec
// finalizers are emptied through the finalize subresource.
func TestNamespaceDeleteAndFinalize(t *testing.T) {
	e := newEnv(t)
	const path = "/api/v1/namespaces/doomed"
	ns := e.mustDo("POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`, http.StatusCreated)
	if str(ns, "status.phase") != "Active" || str(ns, "spec.finalizers") != "[kubernetes]" {
		t.Fatalf("new namespace %v", ns)
	}
	marked := e.mustDo("DELETE", path, "", http.StatusOK)
	if str(marked, "status.phase") != "Terminating" || str(marked, "metadata.deletionTimestamp") == "" {
		t.Fatalf("deleted namespace %v", marked)
	}
	got := e.mustDo("GET", path, "", http.StatusOK)
	if str(got, "status.phase") != "Terminating" {
		t.Fatalf("stored namespace %v", got)
	}
	// The finalize subresource changes only spec.finalizers.
	before := e.etcdState()
	resp, data := e.do("PUT", path+"/finalize", `{"metadata":{"name":"other"},"spec":{"finalizers":[]}}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("finalize with another name: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused finalize")
	// client-go leaves an empty list out.
	e.mustDo("PUT", path+"/finalize", `{"metadata":{"name":"doomed","labels":{"x":"y"}},"spec":{}}`, http.StatusOK)
	e.mustDo("GET", path, "", http.StatusNotFound)
	if e.modRev("/registry/core/namespaces/doomed") != 0 {
		t.Fatal("namespace still in etcd after finalize")
	}
}

func TestDeletePreconditions(t *testing.T) {
	e := newEnv(t)
	cm := e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	uid, rv := str(cm, "metadata.uid"), str(cm, "metadata.resourceVersion")
	for _, body := range []string{
		`{"preconditions":{"uid":"someone-else"}}`,
		`{"preconditions":{"resourceVersion":"1"}}`,
		`{"preconditions":{"uid":"` + uid + `","resourceVersion":"1"}}`,
	} {
		before := e.etcdState()
		resp, data := e.do("DELETE", cmPath+"/a", body)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(string(data), `"reason":"Conflict"`) {
			t.Errorf("DELETE with %s: %d %s", body, resp.StatusCode, data)
		}
		e.untouched(before, "a DELETE whose preconditions fail")
	}
	status := e.mustDo("DELETE", cmPath+"/a", `{"preconditions":{"uid":"`+uid+`","resourceVersion":"`+rv+`"}}`, http.StatusOK)
	if str(status, "kind") != "Status" || str(status, "status") != "Success" || str(status, "details.uid") != uid {
		t.Fatalf("DELETE answered %v", status)
	}
	e.mustDo("GET", cmPath+"/a", "", http.StatusNotFound)
}

func TestDeleteCollectionWithSelector(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ name, app, extra string }{
		{"x1", "x", ""}, {"x2", "x", ""}, {"x3", "x", `,"finalizers":["example.com/hold"]`}, {"y1", "y", ""}, {"y2", "y", ""},
	} {
		e.mustDo("POST", cmPath, `{"metadata":{"name":"`+c.name+`","labels":{"app":"`+c.app+`"}`+c.extra+`}}`, http.StatusCreated)
	}
	e.mustDo("POST", "/api/v1/namespaces", `{"metadata":{"name":"other"}}`, http.StatusCreated)
	e.mustDo("POST", "/api/v1/namespaces/other/configmaps", `{"metadata":{"name":"x9","labels":{"app":"x"}}}`, http.StatusCreated)

	e.mustDo("DELETE", cmPath+"?labelSelector=app%3Dx", "", http.StatusOK)
	list := e.mustDo("GET", cmPath, "", http.StatusOK)
	var names []string
	for _, item := range list["items"].([]any) {
		obj := item.(map[string]any)
		names = append(names, str(obj, "metadata.name"))
		if str(obj, "metadata.name") == "x3" && str(obj, "metadata.deletionTimestamp") == "" {
			t.Errorf("x3 kept without deletionTimestamp")
		}
	}
	if strings.Join(names, ",") != "x3,y1,y2" {
		t.Fatalf("left after deletecollection: %v", names)
	}
	e.mustDo("GET", "/api/v1/namespaces/other/configmaps/x9", "", http.StatusOK)
}

// A DELETE racing an update that adds a finalizer either deletes the
// object before the update (which then finds nothing) or, after it, only
// marks the object: the finalizer is never skipped.
func TestDeleteRacingNewFinalizer(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("race-%d", i)
		e.mustDo("POST", cmPath, `{"metadata":{"name":"`+name+`"}}`, http.StatusCreated)
		var wg sync.WaitGroup
		var deleted, patched int
		wg.Add(2)
		go func() {
			defer wg.Done()
			resp, data := e.do("DELETE", cmPath+"/"+name, "")
			deleted = resp.StatusCode
			if strings.Contains(string(data), `"kind":"Status"`) {
				deleted = -1 // gone: kube answers a Success Status
			}
		}()
		go func() {
			defer wg.Done()
			resp, _ := e.do("PATCH", cmPath+"/"+name, `{"metadata":{"finalizers":["example.com/hold"]}}`,
				"Content-Type", "application/merge-patch+json")
			patched = resp.StatusCode
		}()
		wg.Wait()
		switch {
		case deleted == -1 && patched == http.StatusNotFound:
			e.mustDo("GET", cmPath+"/"+name, "", http.StatusNotFound)
		case deleted == http.StatusOK && patched == http.StatusOK:
			got := e.mustDo("GET", cmPath+"/"+name, "", http.StatusOK)
			if str(got, "metadata.deletionTimestamp") == "" || len(finalizers(got)) != 1 {
				t.Fatalf("%s kept as %v", name, got)
			}
		default:
			t.Fatalf("%s: DELETE %d and finalizer PATCH %d", name, deleted, patched)
		}
	}
}

// DeleteOptions are read in any group version, as kube reads them:
// controller-runtime sends them in the resource's own group version (a
// custom resource's included) or as meta.k8s.io/v1. A body that is not
// DeleteOptions is a 400 and deletes nothing.
func TestDeleteOptionsInAnyGroupVersion(t *testing.T) {
	e := newEnv(t)
	for i, gv := range []string{"stable.example.com/v1", "meta.k8s.io/v1", "apps/v1", "v1", ""} {
		name := fmt.Sprintf("gv%d", i)
		e.mustDo("POST", cmPath, `{"metadata":{"name":"`+name+`","finalizers":["example.com/hold"]}}`, http.StatusCreated)
		marked := e.mustDo("DELETE", cmPath+"/"+name, `{"kind":"DeleteOptions","apiVersion":"`+gv+`","propagationPolicy":"Orphan"}`, http.StatusOK)
		if f := finalizers(marked); !slices.Contains(f, "orphan") {
			t.Errorf("DeleteOptions in %q: finalizers %v", gv, f)
		}
	}
	e.mustDo("POST", cmPath, `{"metadata":{"name":"kept"}}`, http.StatusCreated)
	before := e.etcdState()
	for _, body := range []string{`{"kind":"Pod","apiVersion":"v1"}`, `{"kind":"DeleteOptions","gracePeriodSeconds":"soon"}`, `not json`} {
		e.mustDo("DELETE", cmPath+"/kept", body, http.StatusBadRequest)
	}
	e.mustDo("DELETE", cmPath+"/kept", `{}`, http.StatusUnsupportedMediaType, "Content-Type", "text/plain")
	e.untouched(before, "a DELETE whose body is not DeleteOptions")
}
