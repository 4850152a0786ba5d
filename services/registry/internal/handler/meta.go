package handler

import (
	"fmt"
	"reflect"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// prepareCreate sets the fields the server owns on a new object (uid,
// creationTimestamp and generation; its name from generateName is
// createNamed's) and clears what a client may not set.
func prepareCreate(info *resource.Info, obj *unstructured.Unstructured, now metav1.Time) {
	obj.SetUID(newUID())
	obj.SetCreationTimestamp(now)
	resetCreate(info, obj)
}

// resetCreate clears what a client (or a mutating admitter) may not set on
// a new object.
func resetCreate(info *resource.Info, obj *unstructured.Unstructured) {
	if !info.Namespaced {
		obj.SetNamespace("")
	}
	obj.SetResourceVersion("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetSelfLink("")
	if info.Generation {
		obj.SetGeneration(1)
	}
	if info.StatusSubresource {
		delete(obj.Object, "status")
	}
}

// prepareUpdate carries over, from the current state, everything a write
// to this subresource may not change.
func prepareUpdate(info *resource.Info, obj, cur *unstructured.Unstructured, subresource string) {
	switch subresource {
	case "status":
		next := cur.DeepCopy()
		if status, ok := obj.Object["status"]; ok {
			next.Object["status"] = status
		} else {
			delete(next.Object, "status")
		}
		next.SetManagedFields(obj.GetManagedFields())
		next.SetResourceVersion(obj.GetResourceVersion())
		obj.Object = next.Object
		return
	case "finalize":
		next := cur.DeepCopy()
		// An empty list is sent as no list at all; store it as empty so that
		// defaulting does not put the finalizer back.
		finalizers, ok, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "finalizers")
		if !ok || finalizers == nil {
			finalizers = []any{}
		}
		_ = unstructured.SetNestedField(next.Object, finalizers, "spec", "finalizers")
		next.SetResourceVersion(obj.GetResourceVersion())
		obj.Object = next.Object
		return
	}
	obj.SetUID(cur.GetUID())
	obj.SetCreationTimestamp(cur.GetCreationTimestamp())
	obj.SetDeletionTimestamp(cur.GetDeletionTimestamp())
	obj.SetDeletionGracePeriodSeconds(cur.GetDeletionGracePeriodSeconds())
	obj.SetSelfLink("")
	if info.StatusSubresource {
		keep(obj, cur, "status")
	}
	if info.SpecFinalizers {
		// Only the finalize subresource changes spec.finalizers.
		keep(obj, cur, "spec", "finalizers")
	}
	if info.Generation {
		gen := cur.GetGeneration()
		if specChanged(obj, cur) {
			gen++
		}
		obj.SetGeneration(gen)
	}
}

// keep copies the field at path from cur to obj, or removes it from obj
// when cur has none.
func keep(obj, cur *unstructured.Unstructured, path ...string) {
	if v, ok, _ := unstructured.NestedFieldCopy(cur.Object, path...); ok {
		_ = unstructured.SetNestedField(obj.Object, v, path...)
	} else {
		unstructured.RemoveNestedField(obj.Object, path...)
	}
}

// specChanged reports whether anything but metadata and status differs.
func specChanged(a, b *unstructured.Unstructured) bool {
	for k, v := range a.Object {
		if k != "metadata" && k != "status" && !reflect.DeepEqual(v, b.Object[k]) {
			return true
		}
	}
	for k := range b.Object {
		if _, ok := a.Object[k]; !ok && k != "metadata" && k != "status" {
			return true
		}
	}
	return false
}

// validate checks ObjectMeta and then the type's own rules, answering 422
// Invalid with every problem found.
func validate(info *resource.Info, obj, old *unstructured.Unstructured) error {
	nameFn := apimachineryvalidation.NameIsDNSSubdomain
	if info.ValidateName != nil {
		nameFn = info.ValidateName
	}
	var errs field.ErrorList
	if old == nil {
		errs = apimachineryvalidation.ValidateObjectMetaAccessor(obj, info.Namespaced, nameFn, field.NewPath("metadata"))
	} else {
		errs = apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
		if old.GetDeletionTimestamp() != nil {
			errs = append(errs, noNewFinalizers(obj, old)...)
		}
	}
	if info.Validate != nil {
		errs = append(errs, info.Validate(obj, old)...)
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(info.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	return nil
}

// noNewFinalizers forbids adding a finalizer to an object being deleted,
// as kube does.
func noNewFinalizers(obj, old *unstructured.Unstructured) field.ErrorList {
	had := map[string]bool{}
	for _, f := range old.GetFinalizers() {
		had[f] = true
	}
	for _, f := range obj.GetFinalizers() {
		if !had[f] {
			return field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"),
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %q", f))}
		}
	}
	return nil
}

func newUID() types.UID { return types.UID(uuid.NewString()) }
