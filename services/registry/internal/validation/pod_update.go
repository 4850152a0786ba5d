package validation

import (
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podUpdateForbidden is kube's message for a change to an immutable part of
// a pod's spec.
const podUpdateForbidden = "pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodUpdate enforces that a running pod's spec is immutable except
// for container images, activeDeadlineSeconds (only shortened), added
// tolerations, removed scheduling gates and a negative grace period.
func validatePodUpdate(spec, old *corev1.PodSpec, path *field.Path) field.ErrorList {
	errs := validateDeadlineUpdate(spec.ActiveDeadlineSeconds, old.ActiveDeadlineSeconds, path.Child("activeDeadlineSeconds"))
	errs = append(errs, validateTolerationsUpdate(spec.Tolerations, old.Tolerations, path.Child("tolerations"))...)
	if !apiequality.Semantic.DeepEqual(maskMutable(spec, old), old) {
		errs = append(errs, field.Forbidden(path, podUpdateForbidden))
	}
	return errs
}

// maskMutable returns a copy of spec with the fields a pod update may change
// taken from old, so that what remains must equal old.
func maskMutable(spec, old *corev1.PodSpec) *corev1.PodSpec {
	masked := spec.DeepCopy()
	for i := range masked.Containers {
		if i < len(old.Containers) {
			masked.Containers[i].Image = old.Containers[i].Image
		}
	}
	for i := range masked.InitContainers {
		if i < len(old.InitContainers) {
			masked.InitContainers[i].Image = old.InitContainers[i].Image
		}
	}
	masked.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	masked.Tolerations = old.Tolerations
	if len(masked.SchedulingGates) <= len(old.SchedulingGates) {
		masked.SchedulingGates = old.SchedulingGates
	}
	if g := old.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		masked.TerminationGracePeriodSeconds = old.TerminationGracePeriodSeconds
	}
	return masked
}

// validateDeadlineUpdate allows activeDeadlineSeconds to be set or lowered,
// never removed or raised.
func validateDeadlineUpdate(deadline, old *int64, path *field.Path) field.ErrorList {
	switch {
	case old == nil:
		return nil
	case deadline == nil:
		return field.ErrorList{field.Invalid(path, nil, "must not update from a positive integer to nil value")}
	case *deadline > *old:
		return field.ErrorList{field.Invalid(path, *deadline, "must be less than or equal to previous value")}
	}
	return nil
}

// validateTolerationsUpdate allows tolerations to be added, and existing
// ones to change only their tolerationSeconds.
func validateTolerationsUpdate(tolerations, old []corev1.Toleration, path *field.Path) field.ErrorList {
	for _, o := range old {
		if !hasToleration(tolerations, o) {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// hasToleration reports whether list holds want, ignoring tolerationSeconds.
func hasToleration(list []corev1.Toleration, want corev1.Toleration) bool {
	want.TolerationSeconds = nil
	for _, t := range list {
		t.TolerationSeconds = nil
		if t == want {
			return true
		}
	}
	return false
}
