package limitranger

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// validatePod checks every container (type Container) and the pod's totals
// (type Pod) against every range; all violations are reported, as kube
// aggregates them.
func validatePod(pod *corev1.Pod, ranges []corev1.LimitRange) error {
	var errs []error
	for _, r := range ranges {
		for _, item := range r.Spec.Limits {
			switch item.Type {
			case corev1.LimitTypeContainer:
				for _, c := range allContainers(pod) {
					errs = append(errs, checkItem(item, c.Resources.Requests, c.Resources.Limits)...)
				}
			case corev1.LimitTypePod:
				errs = append(errs, checkItem(item, podRequests(pod), podLimits(pod))...)
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// validateClaim checks a claim's storage request against min and max of
// every PersistentVolumeClaim item.
func validateClaim(pvc *corev1.PersistentVolumeClaim, ranges []corev1.LimitRange) error {
	var errs []error
	for _, r := range ranges {
		for _, item := range r.Spec.Limits {
			if item.Type != corev1.LimitTypePersistentVolumeClaim {
				continue
			}
			requests := pvc.Spec.Resources.Requests
			for _, k := range sortedNames(item.Min) {
				errs = appendErr(errs, minConstraint(item.Type, k, item.Min[k], requests, nil))
			}
			for _, k := range sortedNames(item.Max) {
				errs = appendErr(errs, maxRequestConstraint(item.Type, k, item.Max[k], requests))
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// checkItem applies one item's min, max and ratio to requests and limits.
// Resources are taken in name order so that messages are stable.
func checkItem(item corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	for _, k := range sortedNames(item.Min) {
		errs = appendErr(errs, minConstraint(item.Type, k, item.Min[k], requests, limits))
	}
	for _, k := range sortedNames(item.Max) {
		errs = appendErr(errs, maxConstraint(item.Type, k, item.Max[k], requests, limits))
	}
	for _, k := range sortedNames(item.MaxLimitRequestRatio) {
		errs = appendErr(errs, ratioConstraint(item.Type, k, item.MaxLimitRequestRatio[k], requests, limits))
	}
	return errs
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

func allContainers(pod *corev1.Pod) []corev1.Container {
	all := append([]corev1.Container{}, pod.Spec.Containers...)
	return append(all, pod.Spec.InitContainers...)
}
