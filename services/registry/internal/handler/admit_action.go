package handler

import (
	"encoding/json"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// admitAction runs admission on the object an action subresource takes (a
// Binding, an Eviction), as kube admits the create of one: the review is a
// CREATE of kind on the request's resource and subresource, the mutating
// stage's patch is decoded back into obj, and the validating stage sees
// what will act. NodeRestriction refuses a node's eviction of pods not
// on it here, and PodTopologyLabels labels a Binding.
func (q *request) admitAction(kind schema.GroupVersionKind, name string, obj runtime.Object, dryRun bool) error {
	if !q.h.adm.on() {
		return nil
	}
	obj.GetObjectKind().SetGroupVersionKind(kind)
	review := func() *review {
		return &review{op: admissionv1.Create, kind: kind, name: name, namespace: q.info.Namespace, newObj: obj,
			options: q.writeOptions(admissionv1.Create, dryRun), dryRun: dryRun}
	}
	patched, err := q.mutate(review())
	if err != nil {
		return err
	}
	if patched != nil {
		// Decoded into a cleared obj, so that a field the patch removed
		// is gone.
		reflect.ValueOf(obj).Elem().SetZero()
		if err := json.Unmarshal(patched, obj); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	return q.validateAdmission(review())
}
