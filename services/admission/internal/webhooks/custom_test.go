package webhooks

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// gadgetsCRD serves example.com gadgets in v1 and v2, converting through
// the webhook at url (strategy None when it is empty).
func gadgetsCRD(url string) *unstructured.Unstructured {
	spec := map[string]any{
		"group": "example.com", "scope": "Namespaced",
		"names": map[string]any{"plural": "gadgets", "kind": "Gadget"},
		"versions": []any{
			map[string]any{"name": "v1", "served": true, "storage": true},
			map[string]any{"name": "v2", "served": true, "storage": false},
		},
	}
	if url != "" {
		spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"clientConfig": map[string]any{"url": url}, "conversionReviewVersions": []any{"v1"}}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.example.com"}, "spec": spec,
	}}
}

// sizeConverter is a conversion webhook between v1's spec.size and v2's
// spec.dimension.
func sizeConverter(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv map[string]any
		_ = json.NewDecoder(r.Body).Decode(&rv)
		req := rv["request"].(map[string]any)
		to := req["desiredAPIVersion"].(string)
		var out []any
		for _, o := range req["objects"].([]any) {
			obj := o.(map[string]any)
			spec, _ := obj["spec"].(map[string]any)
			if to == "example.com/v2" {
				spec["dimension"] = spec["size"]
				delete(spec, "size")
			} else {
				spec["size"] = spec["dimension"]
				delete(spec, "dimension")
			}
			obj["apiVersion"] = to
			out = append(out, obj)
		}
		rv["response"] = map[string]any{"uid": req["uid"], "convertedObjects": out, "result": map[string]any{"status": "Success"}}
		_ = json.NewEncoder(w).Encode(rv)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A webhook naming gadgets in v2 is sent a write through v1 converted as
// the CRD converts (its conversion webhook), and its patch of the v2
// object comes back as a change of the v1 one.
func TestEquivalentCustomResourceConverted(t *testing.T) {
	var saw map[string]any
	srv := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		_ = json.Unmarshal(req.Object.Raw, &saw)
		return patching(`[{"op":"replace","path":"/spec/dimension","value":"XL"}]`)(req)
	})
	hook := mutatingHook("gadgets.example.com", srv)
	hook.Rules = createRule("example.com", "v2", "gadgets")
	deps, _ := plugintest.Deps(t, mutatingConfig("gadgets", hook))
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	deps.Dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crds: "CustomResourceDefinitionList"}, gadgetsCRD(sizeConverter(t)))
	m, _, err := NewMutatingPhases(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)

	gadget := map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": "prod"}, "spec": map[string]any{"size": "M"}}
	a := plugintest.Attrs(t, admissionv1.Create, "example.com", "v1", "Gadget", "gadgets", "prod", "g", gadget, nil)
	a.RequestKind, a.RequestResource = a.Kind, a.Resource
	res := plugintest.Admit(t, m, a)
	if !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	req := srv.last.Load()
	if req == nil || req.Kind.Version != "v2" || req.RequestKind.Version != "v1" || saw["apiVersion"] != "example.com/v2" ||
		saw["spec"].(map[string]any)["dimension"] != "M" {
		t.Fatalf("the webhook saw %v (review %+v)", saw, req)
	}
	var got map[string]any
	plugintest.Patched(t, a, res, &got)
	if got["apiVersion"] != "example.com/v1" || got["spec"].(map[string]any)["size"] != "XL" || len(got["spec"].(map[string]any)) != 1 {
		t.Errorf("patched to %v (patch %s)", got, res.Patch)
	}
}
