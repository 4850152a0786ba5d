package customresource

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Server-side apply sees a custom resource as kube does: metadata is
// ObjectMeta, whose finalizers merge as a set (two managers each add
// one), and a field the schema does not declare is kube's error.
func TestApplyTypeConverter(t *testing.T) {
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(testSchema), props); err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "ws", Singular: "w", Kind: "W", ListKind: "WList"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}}},
	}}
	crd.Name = "ws.example.com"
	tc, err := ApplyTypeConverter(crd)
	if err != nil {
		t.Fatal(err)
	}
	withFinalizer := func(f string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "W",
			"metadata": map[string]any{"name": "a", "finalizers": []any{f}}, "spec": map[string]any{"replicas": int64(1)}}}
	}
	one, err := tc.ObjectToTyped(withFinalizer("example.com/one"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := tc.ObjectToTyped(withFinalizer("example.com/two"))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := one.Merge(two)
	if err != nil {
		t.Fatal(err)
	}
	meta := merged.AsValue().Unstructured().(map[string]any)["metadata"].(map[string]any)
	if got := meta["finalizers"].([]any); len(got) != 2 {
		t.Errorf("merged finalizers %v, want both (a set)", got)
	}

	bogus := withFinalizer("example.com/one")
	bogus.Object["spec"].(map[string]any)["bogus"] = true
	if _, err := tc.ObjectToTyped(bogus); err == nil || !strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
		t.Errorf("an undeclared field: %v", err)
	}
}
