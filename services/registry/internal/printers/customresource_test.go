package printers

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCustomResourceColumns(t *testing.T) {
	cols, err := CustomResource([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Ready", Type: "boolean", JSONPath: ".status.ready"},
		{Name: "Missing", Type: "string", JSONPath: ".spec.nothing"},
	})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a"},
		"spec":     map[string]any{"replicas": int64(3), "color": "blue"},
		"status":   map[string]any{"ready": "yes"},
	}}
	got := Cells(cols, obj)
	want := []any{"a", int64(3), "blue", nil, nil}
	if len(got) != len(want) {
		t.Fatalf("cells %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell %d = %#v, want %#v", i, got[i], want[i])
		}
	}
	if defs := Definitions(cols); defs[1].Name != "Replicas" || defs[1].Type != "integer" {
		t.Errorf("definitions %+v", defs)
	}
	if cols, _ := CustomResource(nil); len(cols) != 2 || cols[1].Name != "Age" {
		t.Errorf("default columns %+v", cols)
	}
	if _, err := CustomResource([]apiextensionsv1.CustomResourceColumnDefinition{{Name: "X", Type: "string", JSONPath: ".spec[["}}); err == nil {
		t.Error("a bad JSONPath was accepted")
	}
}
