package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Kube's ObjectMeta validation runs for every kind, built-in or custom, on
// create and on update: a malformed label key and annotations over their
// 256 KiB total are 422 Invalid naming the field, and nothing is stored.
func TestObjectMetaIsValidatedForEveryKind(t *testing.T) {
	e := newEnv(t)
	custom := &resource.Info{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Singular: "widget", Namespaced: true}
	e.h.Add(e.backend.NewStore(custom, storage.StoreOptions{}))
	bad := map[string]string{
		"metadata.labels":      `"labels":{"not a/valid/key":"v"}`,
		"metadata.annotations": fmt.Sprintf(`"annotations":{"a":%q}`, strings.Repeat("x", 256<<10)),
	}
	before := e.etcdState()
	for _, info := range append(resource.Builtins(), custom) {
		if info.ServedVerbs != nil && !slices.Contains(info.ServedVerbs, "watch") {
			continue // stored nowhere: bindings act on a pod, componentstatuses are probed
		}
		ns := ""
		if info.Namespaced {
			ns = "ns"
		}
		for field, meta := range bad {
			body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"x",%s}%s}`, info.APIVersion(), info.Kind, meta, validBeyondMeta(info))
			resp, data := e.do("POST", resourcePath(info, ns), body)
			if !invalidField(resp, data, field) {
				t.Errorf("%s with bad %s: %d, want 422 naming it: %.300s", info.Resource, field, resp.StatusCode, data)
			}
		}
	}
	e.untouched(before, "creates with invalid metadata")

	e.mustDo("POST", cmPath, `{"metadata":{"name":"c"}}`, http.StatusCreated)
	before = e.etcdState()
	for field, meta := range bad {
		resp, data := e.do("PUT", cmPath+"/c", `{"metadata":{"name":"c",`+meta+`}}`)
		if !invalidField(resp, data, field) {
			t.Errorf("update with bad %s: %d %.300s", field, resp.StatusCode, data)
		}
		resp, data = e.do("PATCH", cmPath+"/c", `{"metadata":{`+meta+`}}`, "Content-Type", "application/merge-patch+json")
		if !invalidField(resp, data, field) {
			t.Errorf("patch with bad %s: %d %.300s", field, resp.StatusCode, data)
		}
	}
	e.untouched(before, "updates with invalid metadata")
}

// invalidField reports whether a response is 422 Invalid with a cause at
// field.
func invalidField(resp *http.Response, data []byte, field string) bool {
	var s metav1.Status
	if resp.StatusCode != http.StatusUnprocessableEntity || json.Unmarshal(data, &s) != nil || s.Details == nil {
		return false
	}
	for _, c := range s.Details.Causes {
		if strings.HasPrefix(c.Field, field) {
			return true
		}
	}
	return false
}

// validBeyondMeta is what a kind needs besides metadata for kube to reach
// ObjectMeta's checks: kube reports those only once the kind's own rules
// pass.
func validBeyondMeta(info *resource.Info) string {
	if info.Kind == "Event" {
		return `,"involvedObject":{"namespace":"ns"}`
	}
	return ""
}
