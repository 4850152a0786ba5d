package handler

import (
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// scaleKind is what admission is told a scale write is about: kube's
// admission sees the autoscaling/v1 Scale, not the object behind it.
var scaleKind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// scaleReview is the review of writing the Scale want over old.
func (q *request) scaleReview(wr *write, want, old *autoscalingv1.Scale) *review {
	return &review{op: admissionv1.Update, kind: scaleKind, name: q.info.Name, namespace: q.info.Namespace,
		newObj: want, oldObj: old, options: q.writeOptions(admissionv1.Update, wr.dryRun), dryRun: wr.dryRun}
}

// mutateScale runs mutating admission on a Scale write and returns the
// Scale to apply.
func (q *request) mutateScale(wr *write, want, old *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	if q.h.adm.Mutating == nil {
		return want, nil
	}
	patched, err := q.mutate(q.scaleReview(wr, want, old))
	if err != nil || patched == nil {
		return want, err
	}
	out := &autoscalingv1.Scale{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, q.info.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), out.Spec.Replicas, "must be greater than or equal to 0")})
	}
	return out, nil
}

// validateScale runs validating admission on the Scale of next, the object
// to be stored.
func (q *request) validateScale(wr *write, next *unstructured.Unstructured, old *autoscalingv1.Scale) error {
	if q.h.adm.Validating == nil {
		return nil
	}
	want, err := scaleOf(q.res.Scale, next)
	if err != nil {
		return err
	}
	return q.validateAdmission(q.scaleReview(wr, want, old))
}
