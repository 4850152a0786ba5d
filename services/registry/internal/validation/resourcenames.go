package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The standard (unprefixed) resource names kube knows, by where they may
// appear. A name with a domain prefix is an extended resource instead.
var (
	standardContainerResources = setOf("cpu", "memory", "ephemeral-storage")
	standardResources          = setOf("cpu", "memory", "ephemeral-storage",
		"requests.cpu", "requests.memory", "requests.ephemeral-storage",
		"limits.cpu", "limits.memory", "limits.ephemeral-storage",
		"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
		"persistentvolumeclaims", "storage", "requests.storage",
		"services.nodeports", "services.loadbalancers")
	standardQuotaResources = setOf("pods", "services", "replicationcontrollers", "resourcequotas",
		"secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
		"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
		"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage")
	// integerResources count objects, so fractions make no sense.
	integerResources = setOf("pods", "services", "replicationcontrollers", "resourcequotas",
		"secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers")
)

const hugePagesPrefix = "hugepages-"

// isHugePages reports whether a resource is huge pages of some size, as a
// container requests them or as a quota counts their requests.
func isHugePages(name string) bool {
	return strings.HasPrefix(name, hugePagesPrefix) || strings.HasPrefix(name, "requests."+hugePagesPrefix)
}

// isNativeResource reports whether a resource is kube's own: unprefixed or
// in the kubernetes.io domain.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// isExtendedResource reports whether a resource is a vendor's extended
// resource (example.com/gpu), counted in whole units and never overcommitted.
func isExtendedResource(name string) bool {
	return !isNativeResource(name) && !strings.HasPrefix(name, "requests.") &&
		len(content.IsLabelKey("requests."+name)) == 0
}

// overcommitAllowed reports whether requests may be lower than limits.
func overcommitAllowed(name string) bool {
	return isNativeResource(name) && !strings.HasPrefix(name, hugePagesPrefix)
}

// resourceName checks a resource name in general: qualified, and standard
// when it has no prefix.
func resourceName(name string, path *field.Path) field.ErrorList {
	if errs := qualifiedName(name, path); len(errs) > 0 {
		return errs
	}
	if !strings.Contains(name, "/") && !standardResources[name] && !isHugePages(name) {
		return field.ErrorList{field.Invalid(path, name, "must be a standard resource type or fully qualified")}
	}
	return nil
}

// containerResourceName checks a resource a container may request.
func containerResourceName(name string, path *field.Path) field.ErrorList {
	errs := resourceName(name, path)
	switch {
	case !strings.Contains(name, "/"):
		if !standardContainerResources[name] && !strings.HasPrefix(name, hugePagesPrefix) {
			errs = append(errs, field.Invalid(path, name, "must be a standard resource for containers"))
		}
	case !isNativeResource(name) && !isExtendedResource(name):
		errs = append(errs, field.Invalid(path, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// quotaResourceName checks a resource a quota may limit.
func quotaResourceName(name string, path *field.Path) field.ErrorList {
	errs := resourceName(name, path)
	if len(errs) > 0 || strings.Contains(name, "/") {
		return errs
	}
	if !standardQuotaResources[name] && !isHugePages(name) {
		errs = append(errs, field.Invalid(path, name, "must be a standard resource for quota"))
	}
	return errs
}

// quantityValue checks a quantity for a named resource: never negative, and
// whole for resources that count objects or extended resources.
func quantityValue(name string, q resource.Quantity, path *field.Path) field.ErrorList {
	errs := nonNegativeQuantity(q, path)
	if (integerResources[name] || isExtendedResource(name)) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(path, q.String(), "must be an integer"))
	}
	return errs
}
