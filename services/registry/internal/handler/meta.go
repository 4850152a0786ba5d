package handler

import (
	"fmt"
	"reflect"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// prepareCreate sets the fields the server owns on a new object (uid and
// creationTimestamp; its name from generateName is createNamed's), then
// prepares the rest (prepareNew).
func (q *request) prepareCreate(obj *unstructured.Unstructured) error {
	obj.SetUID(newUID())
	obj.SetCreationTimestamp(q.h.now())
	return q.prepareNew(obj)
}

// prepareNew clears what a client (or a mutating admitter) may not set on
// a new object, then lets the type do its part: kube's strategy for a
// built-in kind, the resource's flags and defaults for a custom resource.
func (q *request) prepareNew(obj *unstructured.Unstructured) error {
	if !q.res.Namespaced {
		obj.SetNamespace("")
	}
	obj.SetResourceVersion("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetSelfLink("")
	if s := q.res.Strategy; s != nil {
		return s.PrepareForCreate(q.strategyContext(), obj)
	}
	if q.res.Generation {
		obj.SetGeneration(1)
	}
	if q.res.StatusSubresource {
		delete(obj.Object, "status")
	}
	if q.res.Default != nil {
		q.res.Default(obj)
	}
	return nil
}

// prepareUpdated carries over, from the current state, everything a write
// to this subresource may not change, and defaults the rest.
func (q *request) prepareUpdated(obj, cur *unstructured.Unstructured) error {
	if s := q.res.Strategy; s != nil {
		keepServerMetadata(obj, cur)
		obj.SetGeneration(cur.GetGeneration()) // the strategy moves it
		return s.PrepareForUpdate(q.strategyContext(), q.info.Subresource, obj, cur)
	}
	if q.res.Default != nil && q.info.Subresource == "" {
		// Before comparing with cur, so that fields left to the server's
		// defaults do not count as a spec change and bump generation.
		q.res.Default(obj)
	}
	prepareUpdate(q.res, obj, cur, q.info.Subresource)
	if q.res.Default != nil {
		q.res.Default(obj)
	}
	return nil
}

// prepareUpdate is prepareUpdated for a resource without a Strategy.
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
	}
	keepServerMetadata(obj, cur)
	if info.StatusSubresource {
		keep(obj, cur, "status")
	}
	if info.Generation {
		gen := cur.GetGeneration()
		if specChanged(obj, cur) {
			gen++
		}
		obj.SetGeneration(gen)
	}
}

// keepServerMetadata carries over the metadata no write may change.
func keepServerMetadata(obj, cur *unstructured.Unstructured) {
	obj.SetUID(cur.GetUID())
	obj.SetCreationTimestamp(cur.GetCreationTimestamp())
	obj.SetDeletionTimestamp(cur.GetDeletionTimestamp())
	obj.SetDeletionGracePeriodSeconds(cur.GetDeletionGracePeriodSeconds())
	obj.SetSelfLink("")
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

// validate checks an object before it is written (old nil on create):
// with kube's validation for a built-in kind, else ObjectMeta and the
// resource's own rules. It answers 422 Invalid with every problem found.
func (q *request) validate(wr *write, obj, old *unstructured.Unstructured) error {
	var errs field.ErrorList
	if s := q.res.Strategy; s != nil {
		verrs, warnings, err := s.Validate(q.strategyContext(), q.info.Subresource, obj, old)
		if err != nil {
			return err
		}
		errs = verrs
		wr.warn(warnings)
	} else {
		if !q.res.ValidatesMeta {
			errs = validateMeta(q.res, obj, old)
		}
		switch {
		case q.info.Subresource == "status" && q.res.ValidateStatus != nil && old != nil:
			errs = append(errs, q.res.ValidateStatus(obj, old)...)
		case q.res.Validate != nil:
			errs = append(errs, q.res.Validate(obj, old)...)
		}
		if len(errs) == 0 && q.res.Warnings != nil {
			wr.warn(q.res.Warnings(obj, old, q.info.Subresource == "status"))
		}
	}
	if old != nil && old.GetDeletionTimestamp() != nil {
		errs = append(errs, noNewFinalizers(obj, old)...)
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(q.res.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	return nil
}

// validateMeta is kube's generic ObjectMeta validation.
func validateMeta(info *resource.Info, obj, old *unstructured.Unstructured) field.ErrorList {
	if old != nil {
		return apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	}
	nameFn := apimachineryvalidation.NameIsDNSSubdomain
	if info.ValidateName != nil {
		nameFn = info.ValidateName
	}
	return apimachineryvalidation.ValidateObjectMetaAccessor(obj, info.Namespaced, nameFn, field.NewPath("metadata"))
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
