package validation

// Placeholders until each type has its real defaulting and validation.

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func DefaultAPIService(obj *unstructured.Unstructured)                       {}
func DefaultCustomResourceDefinition(obj *unstructured.Unstructured)         {}
func DefaultMutatingWebhookConfiguration(obj *unstructured.Unstructured)     {}
func DefaultValidatingAdmissionPolicy(obj *unstructured.Unstructured)        {}
func DefaultValidatingAdmissionPolicyBinding(obj *unstructured.Unstructured) {}
func DefaultValidatingWebhookConfiguration(obj *unstructured.Unstructured)   {}
func ValidateAPIService(obj, old *unstructured.Unstructured) field.ErrorList { return nil }
func ValidateCustomResourceDefinition(obj, old *unstructured.Unstructured) field.ErrorList {
	return nil
}
func ValidateMutatingWebhookConfiguration(obj, old *unstructured.Unstructured) field.ErrorList {
	return nil
}
func ValidateValidatingAdmissionPolicy(obj, old *unstructured.Unstructured) field.ErrorList {
	return nil
}
func ValidateValidatingAdmissionPolicyBinding(obj, old *unstructured.Unstructured) field.ErrorList {
	return nil
}
func ValidateValidatingWebhookConfiguration(obj, old *unstructured.Unstructured) field.ErrorList {
	return nil
}
