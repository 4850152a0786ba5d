package validation

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateDeploymentStrategy checks the strategy type and that only a
// rolling update carries rolling-update parameters.
func validateDeploymentStrategy(strategy *appsv1.DeploymentStrategy, path *field.Path) field.ErrorList {
	rollingPath := path.Child("rollingUpdate")
	switch strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if strategy.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(rollingPath, "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if strategy.RollingUpdate == nil {
			return field.ErrorList{field.Required(rollingPath, "this should be defaulted and never be nil")}
		}
		return validateRollingUpdate(strategy.RollingUpdate, rollingPath)
	default:
		// Kube reports this on the strategy itself, not on its type.
		return field.ErrorList{field.NotSupported(path, strategy.Type, []appsv1.DeploymentStrategyType{
			appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType})}
	}
	return nil
}

// validateRollingUpdate checks maxUnavailable and maxSurge: counts or
// percentages, not both zero (the rollout could never progress), and no
// more than all pods unavailable.
func validateRollingUpdate(r *appsv1.RollingUpdateDeployment, path *field.Path) field.ErrorList {
	unavailablePath := path.Child("maxUnavailable")
	errs := validateIntOrPercent(r.MaxUnavailable, unavailablePath)
	errs = append(errs, validateIntOrPercent(r.MaxSurge, path.Child("maxSurge"))...)
	if intOrPercentValue(r.MaxUnavailable) == 0 && intOrPercentValue(r.MaxSurge) == 0 {
		errs = append(errs, field.Invalid(unavailablePath, r.MaxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if v := r.MaxUnavailable; v != nil && v.Type == intstr.String && intOrPercentValue(v) > 100 {
		errs = append(errs, field.Invalid(unavailablePath, v, "must not be greater than 100%"))
	}
	return errs
}

// validateIntOrPercent checks a non-negative count or a percentage.
func validateIntOrPercent(v *intstr.IntOrString, path *field.Path) field.ErrorList {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.String:
		return invalidEach(path, v, validation.IsValidPercent(v.StrVal))
	default:
		return apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), path)
	}
}

// intOrPercentValue is the number in a count or percentage; an absent or
// malformed value counts as 0.
func intOrPercentValue(v *intstr.IntOrString) int {
	if v == nil {
		return 0
	}
	if v.Type == intstr.Int {
		return v.IntValue()
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil {
		return 0
	}
	return n
}
