package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateResourceRequirements checks a container's limits and requests:
// known resource names, non-negative (and for counted resources whole)
// quantities, and requests within limits. Resources that cannot be
// overcommitted (extended resources, huge pages) need request == limit.
func validateResourceRequirements(r *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	limPath, reqPath := path.Child("limits"), path.Child("requests")
	var errs field.ErrorList
	for _, name := range sortedKeys(r.Limits) {
		p := limPath.Key(string(name))
		errs = append(errs, containerResourceName(string(name), p)...)
		errs = append(errs, quantityValue(string(name), r.Limits[name], p)...)
	}
	for _, name := range sortedKeys(r.Requests) {
		p, q := reqPath.Key(string(name)), r.Requests[name]
		errs = append(errs, containerResourceName(string(name), p)...)
		errs = append(errs, quantityValue(string(name), q, p)...)
		limit, hasLimit := r.Limits[name]
		switch {
		case hasLimit && q.Cmp(limit) != 0 && !overcommitAllowed(string(name)):
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
		case hasLimit && q.Cmp(limit) > 0:
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		case !hasLimit && !overcommitAllowed(string(name)):
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
	}
	return errs
}
