package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// limitRangeLists are the resource lists of a LimitRange item.
var limitRangeLists = []string{"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"}

// DefaultLimitRange fills in the defaults of Container items: the default
// limit from max, and the default request from the default limit, else
// from min. (Not yet in the resource table; see the package report.)
func DefaultLimitRange(obj *unstructured.Unstructured) {
	for _, item := range mapsAt(mapAt(obj.Object, "spec"), "limits") {
		if stringAt(item, "type") != string(corev1.LimitTypeContainer) {
			continue
		}
		def, defReq := ensureMap(item, "default"), ensureMap(item, "defaultRequest")
		copyMissing(def, mapAt(item, "max"))
		copyMissing(defReq, def)
		copyMissing(defReq, mapAt(item, "min"))
	}
}

// copyMissing copies the entries of src whose keys dst lacks.
func copyMissing(dst, src map[string]any) {
	if dst == nil {
		return
	}
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
}

// ValidateLimitRange checks each item's type, resource names and
// quantities, and that min <= defaultRequest <= default <= max.
func ValidateLimitRange(obj, old *unstructured.Unstructured) field.ErrorList {
	limitsPath := field.NewPath("spec", "limits")
	var errs field.ErrorList
	for i, item := range mapsAt(mapAt(obj.Object, "spec"), "limits") {
		for _, key := range limitRangeLists {
			errs = append(errs, quantityListErrs(item, key, limitsPath.Index(i))...)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	lr, _, errs := decodePair[corev1.LimitRange](obj, old)
	if len(errs) > 0 {
		return errs
	}
	types := map[corev1.LimitType]bool{}
	for i := range lr.Spec.Limits {
		item, idx := &lr.Spec.Limits[i], limitsPath.Index(i)
		errs = append(errs, validateLimitType(item.Type, idx.Child("type"))...)
		if types[item.Type] {
			errs = append(errs, field.Duplicate(idx.Child("type"), item.Type))
		}
		types[item.Type] = true
		errs = append(errs, validateLimitRangeItem(item, idx)...)
	}
	return errs
}

// validateLimitType checks an item type: a standard one, or qualified.
func validateLimitType(t corev1.LimitType, path *field.Path) field.ErrorList {
	if errs := qualifiedName(string(t), path); len(errs) > 0 {
		return errs
	}
	standard := setOf(string(corev1.LimitTypePod), string(corev1.LimitTypeContainer), string(corev1.LimitTypePersistentVolumeClaim))
	if !isStandardOrQualified(string(t), standard) {
		return field.ErrorList{field.Invalid(path, t, "must be a standard limit type or fully qualified")}
	}
	return nil
}

// validateLimitRangeItem checks one item's lists and their ordering.
func validateLimitRangeItem(item *corev1.LimitRangeItem, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	lists := map[string]corev1.ResourceList{"max": item.Max, "min": item.Min, "default": item.Default,
		"defaultRequest": item.DefaultRequest, "maxLimitRequestRatio": item.MaxLimitRequestRatio}
	names := map[corev1.ResourceName]bool{}
	for _, key := range limitRangeLists {
		for _, name := range sortedKeys(lists[key]) {
			names[name] = true
			p := path.Child(key).Key(string(name))
			if item.Type == corev1.LimitTypePod || item.Type == corev1.LimitTypeContainer {
				errs = append(errs, containerResourceName(string(name), p)...)
			} else {
				errs = append(errs, resourceName(string(name), p)...)
			}
			errs = append(errs, quantityValue(string(name), lists[key][name], p)...)
		}
	}
	if item.Type == corev1.LimitTypePod {
		for _, key := range []string{"default", "defaultRequest"} {
			if len(lists[key]) > 0 {
				errs = append(errs, field.Forbidden(path.Child(key), "may not be specified when `type` is 'Pod'"))
			}
		}
	}
	for _, name := range sortedKeys(names) {
		errs = append(errs, validateLimitOrder(item, name, path)...)
	}
	return errs
}

// validateLimitOrder checks, for one resource, the order kube requires:
// min <= defaultRequest <= default <= max, and a ratio of at least 1.
func validateLimitOrder(item *corev1.LimitRangeItem, name corev1.ResourceName, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	key := string(name)
	minQ, hasMin := item.Min[name]
	maxQ, hasMax := item.Max[name]
	defQ, hasDef := item.Default[name]
	reqQ, hasReq := item.DefaultRequest[name]
	ratio, hasRatio := item.MaxLimitRequestRatio[name]
	above := func(p *field.Path, a, b resource.Quantity, what string) {
		errs = append(errs, field.Invalid(p.Key(key), a.String(), fmt.Sprintf(what, a.String(), b.String())))
	}
	if hasMin && hasMax && minQ.Cmp(maxQ) > 0 {
		above(path.Child("min"), minQ, maxQ, "min value %s is greater than max value %s")
	}
	if hasReq && hasMin && minQ.Cmp(reqQ) > 0 {
		above(path.Child("defaultRequest"), minQ, reqQ, "min value %s is greater than default request value %s")
	}
	if hasReq && hasMax && reqQ.Cmp(maxQ) > 0 {
		above(path.Child("defaultRequest"), reqQ, maxQ, "default request value %s is greater than max value %s")
	}
	if hasReq && hasDef && reqQ.Cmp(defQ) > 0 {
		above(path.Child("defaultRequest"), reqQ, defQ, "default request value %s is greater than default limit value %s")
	}
	if hasDef && hasMin && minQ.Cmp(defQ) > 0 {
		above(path.Child("default"), minQ, defQ, "min value %s is greater than default value %s")
	}
	if hasDef && hasMax && defQ.Cmp(maxQ) > 0 {
		above(path.Child("default"), defQ, maxQ, "default value %s is greater than max value %s")
	}
	if hasRatio && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		errs = append(errs, field.Invalid(path.Child("maxLimitRequestRatio").Key(key), ratio.String(),
			fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	return errs
}
