package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// quantityListErrs checks that every value of the resource list at m[key]
// parses as a quantity. It runs before the typed decode, which would fail on
// a bad quantity without saying which field held it.
func quantityListErrs(m map[string]any, key string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, v := range mapAt(m, key) {
		if err := checkQuantity(v); err != nil {
			errs = append(errs, field.Invalid(path.Child(key).Key(name), v, err.Error()))
		}
	}
	return errs
}

// checkQuantity reports whether a JSON value decodes as a Quantity, which
// accepts a string in quantity syntax or a plain number.
func checkQuantity(v any) error {
	switch q := v.(type) {
	case string:
		_, err := resource.ParseQuantity(q)
		return err
	case int64, float64, int32, int:
		return nil
	default:
		return fmt.Errorf("quantities must be a string or a number")
	}
}

// requirementsQuantityErrs checks the limits and requests of one
// ResourceRequirements object.
func requirementsQuantityErrs(req map[string]any, path *field.Path) field.ErrorList {
	errs := quantityListErrs(req, "limits", path)
	return append(errs, quantityListErrs(req, "requests", path)...)
}

// podSpecQuantityErrs checks every resource list of a pod spec: those of
// each container, the pod-level resources and the overhead.
func podSpecQuantityErrs(spec map[string]any, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		list, _ := spec[key].([]any)
		for i, item := range list {
			ctr, _ := item.(map[string]any)
			errs = append(errs, requirementsQuantityErrs(mapAt(ctr, "resources"), path.Child(key).Index(i).Child("resources"))...)
		}
	}
	errs = append(errs, requirementsQuantityErrs(mapAt(spec, "resources"), path.Child("resources"))...)
	return append(errs, quantityListErrs(spec, "overhead", path)...)
}

// nonNegativeQuantity reports a negative quantity the way kube does.
func nonNegativeQuantity(q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), "must be greater than or equal to 0")}
	}
	return nil
}
