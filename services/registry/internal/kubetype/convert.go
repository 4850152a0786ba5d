package kubetype

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Convert returns a built-in object converted to apiVersion through kube's
// internal version: one kind served in two versions over one storage
// (autoscaling/v1 and v2 HorizontalPodAutoscalers) or in two groups
// (core/v1 and events.k8s.io/v1 Events). It is the storage's Converter.
func Convert(obj map[string]any, apiVersion string) (map[string]any, error) {
	from := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	to, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	ext, err := legacyscheme.Scheme.New(from)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, ext); err != nil {
		return nil, fmt.Errorf("convert %v: %w", from, err)
	}
	legacyscheme.Scheme.Default(ext)
	internal, err := legacyscheme.Scheme.ConvertToVersion(ext, schema.GroupVersion{Group: from.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, err
	}
	out, err := legacyscheme.Scheme.ConvertToVersion(internal, to)
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(to.WithKind(from.Kind))
	return m, nil
}
