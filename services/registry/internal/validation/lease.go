package validation

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateLease checks a Lease's durations and its coordinated-leader
// election fields.
func ValidateLease(obj, old *unstructured.Unstructured) field.ErrorList {
	lease, _, errs := decodePair[coordinationv1.Lease](obj, old)
	if len(errs) > 0 {
		return errs
	}
	spec, path := &lease.Spec, field.NewPath("spec")
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(path.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if n := spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(path.Child("leaseTransitions"), *n, "must be greater than or equal to 0"))
	}
	if spec.Strategy != nil {
		errs = append(errs, validateLeaseStrategy(*spec.Strategy, path.Child("strategy"))...)
	}
	if spec.PreferredHolder != nil && *spec.PreferredHolder != "" && (spec.Strategy == nil || *spec.Strategy == "") {
		errs = append(errs, field.Forbidden(path.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// validateLeaseStrategy checks a strategy: kube's one, or a qualified name
// for strategies of other coordinators.
func validateLeaseStrategy(s coordinationv1.CoordinatedLeaseStrategy, path *field.Path) field.ErrorList {
	if strings.Contains(string(s), "/") {
		return qualifiedName(string(s), path)
	}
	if s != coordinationv1.OldestEmulationVersion {
		return field.ErrorList{field.NotSupported(path, s, []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion})}
	}
	return nil
}
