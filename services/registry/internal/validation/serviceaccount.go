package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateServiceAccount checks only that a ServiceAccount decodes: kube
// has no rules for it beyond its metadata, which the store checks.
func ValidateServiceAccount(obj, old *unstructured.Unstructured) field.ErrorList {
	_, _, errs := decodePair[corev1.ServiceAccount](obj, old)
	return errs
}
