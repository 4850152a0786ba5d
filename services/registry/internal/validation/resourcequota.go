package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateResourceQuota checks the quota's resource names and quantities,
// in spec and status, and its scopes.
func ValidateResourceQuota(obj, old *unstructured.Unstructured) field.ErrorList {
	specPath, statusPath := field.NewPath("spec"), field.NewPath("status")
	errs := quantityListErrs(mapAt(obj.Object, "spec"), "hard", specPath)
	errs = append(errs, quantityListErrs(mapAt(obj.Object, "status"), "hard", statusPath)...)
	errs = append(errs, quantityListErrs(mapAt(obj.Object, "status"), "used", statusPath)...)
	if len(errs) > 0 {
		return errs
	}
	q, _, errs := decodePair[corev1.ResourceQuota](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateQuotaList(q.Spec.Hard, specPath.Child("hard"))
	errs = append(errs, validateQuotaList(q.Status.Hard, statusPath.Child("hard"))...)
	errs = append(errs, validateQuotaList(q.Status.Used, statusPath.Child("used"))...)
	return append(errs, validateQuotaScopes(q.Spec.Scopes, specPath.Child("scopes"))...)
}

// validateQuotaList checks the names and quantities of one resource list.
func validateQuotaList(list corev1.ResourceList, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(list) {
		p := path.Key(string(name))
		errs = append(errs, quotaResourceName(string(name), p)...)
		errs = append(errs, quantityValue(string(name), list[name], p)...)
	}
	return errs
}

// quotaScopes are the scopes kube knows.
var quotaScopes = setOf(string(corev1.ResourceQuotaScopeTerminating), string(corev1.ResourceQuotaScopeNotTerminating),
	string(corev1.ResourceQuotaScopeBestEffort), string(corev1.ResourceQuotaScopeNotBestEffort),
	string(corev1.ResourceQuotaScopePriorityClass), string(corev1.ResourceQuotaScopeCrossNamespacePodAffinity),
	string(corev1.ResourceQuotaScopeVolumeAttributesClass))

// validateQuotaScopes checks that scopes are known and do not contradict
// each other (a pod cannot be both terminating and not).
func validateQuotaScopes(scopes []corev1.ResourceQuotaScope, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.ResourceQuotaScope]bool{}
	for _, s := range scopes {
		if !quotaScopes[string(s)] {
			errs = append(errs, field.Invalid(path, s, "unsupported scope"))
		}
		seen[s] = true
	}
	if (seen[corev1.ResourceQuotaScopeTerminating] && seen[corev1.ResourceQuotaScopeNotTerminating]) ||
		(seen[corev1.ResourceQuotaScopeBestEffort] && seen[corev1.ResourceQuotaScopeNotBestEffort]) {
		errs = append(errs, field.Invalid(path, scopes, "conflicting scopes"))
	}
	return errs
}
