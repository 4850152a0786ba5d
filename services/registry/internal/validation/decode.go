package validation

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// decode converts obj into the typed struct into. Kube rejects a body whose
// fields have the wrong JSON type while decoding it; here the object is
// already unstructured, so the failure is reported as an invalid object
// (the empty path means the whole object, as kube's size checks do).
func decode(obj *unstructured.Unstructured, into any) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(field.NewPath(""), "object is missing")}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), into); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(""), field.OmitValueType{}, "cannot decode object: "+err.Error())}
	}
	return nil
}

// decodePair decodes the new object and, on update, the old one. prev is nil
// on create. When errs is non-empty the caller returns it as is: the rules
// cannot run on a half-decoded object.
func decodePair[T any](obj, old *unstructured.Unstructured) (cur, prev *T, errs field.ErrorList) {
	cur = new(T)
	if errs = decode(obj, cur); len(errs) > 0 {
		return nil, nil, errs
	}
	if old == nil {
		return cur, nil, nil
	}
	prev = new(T)
	if errs = decode(old, prev); len(errs) > 0 {
		return nil, nil, errs
	}
	return cur, prev, nil
}
