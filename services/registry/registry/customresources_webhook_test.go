package registry

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// converterWebhook converts things between v1beta1 (spec.count) and v1
// (spec.replicas), counting its reviews.
func converterWebhook(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		review := &apiextensionsv1.ConversionReview{}
		if err := json.NewDecoder(r.Body).Decode(review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, raw := range review.Request.Objects {
			obj := map[string]any{}
			_ = json.Unmarshal(raw.Raw, &obj)
			spec, _ := obj["spec"].(map[string]any)
			from, to := "count", "replicas"
			if review.Request.DesiredAPIVersion == "example.com/v1beta1" {
				from, to = to, from
			}
			if v, ok := spec[from]; ok {
				spec[to] = v
				delete(spec, from)
			}
			obj["apiVersion"] = review.Request.DesiredAPIVersion
			data, _ := json.Marshal(obj)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
		}
		review.Response, review.Request = resp, nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestCustomResourceConversionWebhook serves a CRD whose versions differ
// in shape: the conversion webhook converts objects written at one version
// to the storage version and back, as kube's webhook converter does.
func TestCustomResourceConversionWebhook(t *testing.T) {
	cfg := startWithControllers(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	hook, calls := converterWebhook(t)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	crd := map[string]any{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing}
  versions:
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`), &crd); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(crd, map[string]any{"strategy": "Webhook", "webhook": map[string]any{
		"conversionReviewVersions": []any{"v1"},
		"clientConfig":             map[string]any{"url": hook.URL + "/convert", "caBundle": base64.StdEncoding.EncodeToString(caPEM)},
	}}, "spec", "conversion")
	manifest, _ := yaml.Marshal(crd)
	installCRD(t, cfg, dyn, string(manifest))

	beta := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "things"}).Namespace("default")
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}).Namespace("default")
	thing := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1beta1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "labels": map[string]any{"a": "b"}}, "spec": map[string]any{"count": int64(3)}}}
	created, err := beta.Create(ctx, thing, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(created.Object, "spec", "count"); n != 3 {
		t.Errorf("created at v1beta1: %v", created.Object)
	}
	got, err := v1.Get(ctx, "t", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); n != 3 || got.GetLabels()["a"] != "b" || got.GetUID() != created.GetUID() {
		t.Errorf("read at v1: %v, want spec.replicas 3 and the same metadata", got.Object)
	}
	_ = unstructured.SetNestedField(got.Object, int64(5), "spec", "replicas")
	if _, err := v1.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := beta.Get(ctx, "t", metav1.GetOptions{})
	if n, _, _ := unstructured.NestedInt64(back.Object, "spec", "count"); err != nil || n != 5 {
		t.Errorf("read back at v1beta1: %v, %v", err, back)
	}
	if calls.Load() == 0 {
		t.Error("the conversion webhook was never called")
	}
}
