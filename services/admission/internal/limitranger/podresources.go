package limitranger

import (
	corev1 "k8s.io/api/core/v1"
)

// podRequests and podLimits are what a pod as a whole asks for, as kube's
// limitranger counts it from the spec: the regular containers and the
// sidecars (restartable init containers) run together, each ordinary init
// container runs alone (with the sidecars started before it), and the pod
// needs the most of these. The overhead adds to every request, and to the
// limits that are set. A resource no container names is absent, so a Pod
// min reports "No request".
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	total := podTotal(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
	add(total, pod.Spec.Overhead)
	return total
}

func podLimits(pod *corev1.Pod) corev1.ResourceList {
	total := podTotal(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	for k, v := range pod.Spec.Overhead {
		if cur, ok := total[k]; ok {
			cur.Add(v)
			total[k] = cur
		}
	}
	return total
}

func podTotal(pod *corev1.Pod, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		add(total, of(&pod.Spec.Containers[i]))
	}
	sidecars := corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if isSidecar(c) {
			add(total, of(c))
			add(sidecars, of(c))
			continue
		}
		alone := corev1.ResourceList{}
		add(alone, sidecars)
		add(alone, of(c))
		maxInto(total, alone)
	}
	return total
}

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// add sums src into dst.
func add(dst, src corev1.ResourceList) {
	for k, v := range src {
		cur, ok := dst[k]
		if !ok {
			dst[k] = v.DeepCopy()
			continue
		}
		cur.Add(v)
		dst[k] = cur
	}
}

// maxInto raises dst to src where src is higher (or dst lacks it).
func maxInto(dst, src corev1.ResourceList) {
	for k, v := range src {
		if cur, ok := dst[k]; !ok || v.Cmp(cur) > 0 {
			dst[k] = v.DeepCopy()
		}
	}
}
