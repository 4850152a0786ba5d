package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePod checks a Pod's spec and, on update, that only the fields kube
// lets a pod change have changed.
func ValidatePod(obj, old *unstructured.Unstructured) field.ErrorList {
	specPath := field.NewPath("spec")
	if errs := podSpecQuantityErrs(mapAt(obj.Object, "spec"), specPath); len(errs) > 0 {
		return errs
	}
	pod, oldPod, errs := decodePair[corev1.Pod](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validatePodSpec(&pod.Spec, specPath)
	if oldPod != nil {
		errs = append(errs, validatePodUpdate(&pod.Spec, &oldPod.Spec, specPath)...)
	}
	return errs
}
