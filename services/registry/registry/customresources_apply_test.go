package registry

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

const gatewayCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gateways.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gateways, singular: gateway, kind: Gateway, listKind: GatewayList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              listeners:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
              hosts:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
`

func gateway(listeners []any, hosts ...any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "g", "namespace": "default"},
		"spec":     map[string]any{"listeners": listeners, "hosts": hosts}}}
}

// Server-side apply merges a custom resource's map lists by their keys and
// its sets by value, as its schema says, so two managers each own their
// own entries instead of fighting over the whole list.
func TestCustomResourceApplyMergesListsBySchema(t *testing.T) {
	cfg := startWithControllers(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	installCRD(t, cfg, dyn, gatewayCRD)
	res := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gateways"}).Namespace("default")
	ctx := context.Background()
	if _, err := res.Apply(ctx, "g", gateway([]any{map[string]any{"name": "http", "port": int64(80)}}, "a.example"),
		metav1.ApplyOptions{FieldManager: "alice"}); err != nil {
		t.Fatal(err)
	}
	got, err := res.Apply(ctx, "g", gateway([]any{map[string]any{"name": "https", "port": int64(443)}}, "b.example"),
		metav1.ApplyOptions{FieldManager: "bob"})
	if err != nil {
		t.Fatalf("a second manager applying its own entries: %v", err)
	}
	listeners, _, _ := unstructured.NestedSlice(got.Object, "spec", "listeners")
	hosts, _, _ := unstructured.NestedStringSlice(got.Object, "spec", "hosts")
	if len(listeners) != 2 || len(hosts) != 2 {
		t.Fatalf("after both applies: listeners %v, hosts %v, want both managers' entries", listeners, hosts)
	}
	// Changing alice's entry is a conflict for bob.
	_, err = res.Apply(ctx, "g", gateway([]any{map[string]any{"name": "http", "port": int64(8080)}}),
		metav1.ApplyOptions{FieldManager: "bob"})
	if err == nil {
		t.Error("bob changed alice's listener without a conflict")
	}
}
