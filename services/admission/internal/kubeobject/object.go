package kubeobject

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// Every built-in kind's versions, conversions and defaulters.
	_ "github.com/kubesplit/kubesplit/pkg/kubeapis"
)

// Internal reads raw, an object of kind gvk as it is served, into
// kube's internal type, defaulted as kube-apiserver's decoder defaults
// what it reads, so that the plugin sees what it sees in kube. Nil when
// raw is empty. A kind kube has no type for (a custom resource) is read
// as kube's plugins see one: unstructured, in its served version, since
// custom resources have no internal one.
func Internal(raw []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !legacyscheme.Scheme.Recognizes(gvk) {
		return customObject(raw, gvk)
	}
	ext, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("kind %v: %w", gvk, err)
	}
	if err := json.Unmarshal(raw, ext); err != nil {
		return nil, fmt.Errorf("decoding the admitted %v: %w", gvk, err)
	}
	legacyscheme.Scheme.Default(ext)
	internal := schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}
	obj, err := legacyscheme.Scheme.ConvertToVersion(ext, internal)
	if err != nil {
		return nil, fmt.Errorf("converting the admitted %v to kube's internal version: %w", gvk, err)
	}
	return obj, nil
}

// customObject is raw as an unstructured object of kind gvk.
func customObject(raw []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	var content map[string]any
	if err := json.Unmarshal(raw, &content); err != nil {
		return nil, fmt.Errorf("decoding the admitted %v: %w", gvk, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// ExternalJSON is obj, an internal object, converted back to the served
// version gv (an unstructured one is in it already) and read as generic
// JSON, for comparing before and after.
func ExternalJSON(obj runtime.Object, gv schema.GroupVersion) (map[string]any, error) {
	ext := obj
	if _, custom := obj.(*unstructured.Unstructured); !custom {
		var err error
		if ext, err = legacyscheme.Scheme.ConvertToVersion(obj, gv); err != nil {
			return nil, fmt.Errorf("converting back to %v: %w", gv, err)
		}
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Convert is raw, an object of kind from as served, as JSON of version to
// (kube's internal version between them, defaulted on the way as kube's
// decoder defaults): what a webhook matched through an equivalent resource
// is sent. A kind kube has no type for cannot be converted here.
func Convert(raw []byte, from schema.GroupVersionKind, to schema.GroupVersion) (map[string]any, error) {
	if !legacyscheme.Scheme.Recognizes(from) {
		return nil, fmt.Errorf("no conversion of %v to %v", from, to)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	obj, err := Internal(raw, from)
	if err != nil {
		return nil, err
	}
	return ExternalJSON(obj, to)
}
