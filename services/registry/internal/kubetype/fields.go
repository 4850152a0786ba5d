package kubetype

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Attrs is kube's function giving an object's selectable fields, by their
// internal names (pod.GetAttrs, node.GetAttrs, …).
type Attrs func(obj runtime.Object) (labels.Set, fields.Set, error)

// ConvertFieldLabel maps a field selector's field, as the served version
// names it, to the name FieldSet uses; a field the kind cannot select on
// is kube's error (`"x" is not a known field selector: only …`).
func (k *Kind) ConvertFieldLabel(label, value string) (string, string, error) {
	return legacyscheme.Scheme.ConvertFieldLabel(k.gvk, label, value)
}

// FieldSet is obj's selectable fields as kube computes them: its Attrs,
// else metadata.name (and metadata.namespace for namespaced kinds).
func (k *Kind) FieldSet(u *unstructured.Unstructured) (fields.Set, error) {
	if k.attrs == nil {
		set := fields.Set{"metadata.name": u.GetName()}
		if k.object.NamespaceScoped() {
			set["metadata.namespace"] = u.GetNamespace()
		}
		return set, nil
	}
	obj, err := k.toInternal(u)
	if err != nil {
		return nil, err
	}
	_, set, err := k.attrs(obj)
	return set, err
}

// WithAttrs gives the kind kube's selectable-field function.
func (k *Kind) WithAttrs(a Attrs) *Kind {
	k.attrs = a
	return k
}
