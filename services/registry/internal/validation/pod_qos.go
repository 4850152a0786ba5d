package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// qosResources are the resources that decide a pod's QoS class.
var qosResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// podQOSClass computes status.qosClass as kube does when a pod is created.
// ok is false when the pod does not decode; validation reports why.
func podQOSClass(obj *unstructured.Unstructured) (corev1.PodQOSClass, bool) {
	var pod corev1.Pod
	if len(decode(obj, &pod)) > 0 {
		return "", false
	}
	return qosClassOf(&pod.Spec), true
}

// qosClassOf is BestEffort when nothing requests or limits CPU or memory,
// Guaranteed when every container limits both and requests equal limits,
// and Burstable otherwise. Pod-level resources, when set, decide alone.
func qosClassOf(spec *corev1.PodSpec) corev1.PodQOSClass {
	var all []corev1.ResourceRequirements
	if spec.Resources != nil {
		all = append(all, *spec.Resources)
	} else {
		for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
			all = append(all, c.Resources)
		}
	}
	requests, limits := map[corev1.ResourceName]resource.Quantity{}, map[corev1.ResourceName]resource.Quantity{}
	guaranteed := true
	for _, r := range all {
		addPositive(requests, r.Requests)
		addPositive(limits, r.Limits)
		for _, name := range qosResources {
			if q, ok := r.Limits[name]; !ok || q.Sign() <= 0 {
				guaranteed = false
			}
		}
	}
	switch {
	case len(requests) == 0 && len(limits) == 0:
		return corev1.PodQOSBestEffort
	case guaranteed && sameQuantities(requests, limits):
		return corev1.PodQOSGuaranteed
	default:
		return corev1.PodQOSBurstable
	}
}

// addPositive sums the positive CPU and memory quantities of list into sum.
func addPositive(sum map[corev1.ResourceName]resource.Quantity, list corev1.ResourceList) {
	for _, name := range qosResources {
		q, ok := list[name]
		if !ok || q.Sign() <= 0 {
			continue
		}
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
}

// sameQuantities reports whether a and b hold equal quantities for the same
// names.
func sameQuantities(a, b map[corev1.ResourceName]resource.Quantity) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}
