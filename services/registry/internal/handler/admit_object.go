package handler

import (
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// optionsTypeMeta is how kube names the options it sends in a review.
func optionsTypeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: kind}
}

// writeOptions are the CreateOptions or UpdateOptions of a write, as kube
// sends them: a patch is an UPDATE with UpdateOptions, an apply that
// creates is a CREATE with CreateOptions.
func (q *request) writeOptions(op admissionv1.Operation, dryRun bool) runtime.Object {
	v := q.r.URL.Query()
	var dr []string
	if dryRun {
		dr = []string{metav1.DryRunAll}
	}
	if op == admissionv1.Create {
		return &metav1.CreateOptions{TypeMeta: optionsTypeMeta("CreateOptions"), DryRun: dr,
			FieldManager: v.Get("fieldManager"), FieldValidation: v.Get("fieldValidation")}
	}
	return &metav1.UpdateOptions{TypeMeta: optionsTypeMeta("UpdateOptions"), DryRun: dr,
		FieldManager: v.Get("fieldManager"), FieldValidation: v.Get("fieldValidation")}
}

// objectReview is the review of writing obj over old (nil on create).
func (q *request) objectReview(wr *write, op admissionv1.Operation, obj, old *unstructured.Unstructured) *review {
	rv := &review{op: op, kind: q.res.GroupVersionKind(), name: obj.GetName(), namespace: obj.GetNamespace(),
		newObj: obj.Object, options: q.writeOptions(op, wr.dryRun), dryRun: wr.dryRun}
	if old != nil {
		rv.oldObj = old.Object
	}
	return rv
}

// mutateObject runs mutating admission on obj and returns the object as
// admission patched it, or nil when nothing changed. The caller puts back
// what the server owns before the registry's own validation judges it.
func (q *request) mutateObject(wr *write, op admissionv1.Operation, obj, old *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if q.h.adm.Mutating == nil {
		return nil, nil
	}
	patched, err := q.mutate(q.objectReview(wr, op, obj, old))
	if err != nil || patched == nil {
		return nil, err
	}
	next, _, err := objectFromJSON(q.res, patched)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if next.GetNamespace() != obj.GetNamespace() {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	// Field ownership is the field manager's: a patch to it could leave
	// the object with managedFields it cannot read.
	next.SetManagedFields(obj.GetManagedFields())
	return next, nil
}

// validateObject runs validating admission on the object to be stored.
func (q *request) validateObject(wr *write, op admissionv1.Operation, obj, old *unstructured.Unstructured) error {
	if q.h.adm.Validating == nil {
		return nil
	}
	return q.validateAdmission(q.objectReview(wr, op, obj, old))
}

// admitDelete asks admission about deleting live, as kube asks both stages
// on DELETE: no object, the live one as OldObject, the DeleteOptions.
func (q *request) admitDelete(live *unstructured.Unstructured, opts *metav1.DeleteOptions) error {
	if !q.h.adm.on() {
		return nil
	}
	o := opts.DeepCopy()
	o.TypeMeta = optionsTypeMeta("DeleteOptions")
	rv := &review{op: admissionv1.Delete, kind: q.res.GroupVersionKind(), name: live.GetName(),
		namespace: live.GetNamespace(), oldObj: live.Object, options: o, dryRun: len(opts.DryRun) > 0}
	if _, err := q.mutate(rv); err != nil {
		return err
	}
	return q.validateAdmission(rv)
}
