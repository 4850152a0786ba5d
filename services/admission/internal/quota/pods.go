package quota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podUsage is what a pod is charged, as kube's pod evaluator computes it:
// count/pods always (it counts what is stored), the pod itself and its
// compute resources only while it is live.
func podUsage(p *corev1.Pod, now time.Time) corev1.ResourceList {
	if !chargedPod(p, now) {
		return corev1.ResourceList{}
	}
	requests := add(podResources(p, requestsOf), p.Spec.Overhead)
	// Overhead raises a limit that is set; an unset one stays unlimited.
	limits := podResources(p, limitsOf)
	limits = add(limits, mask(p.Spec.Overhead, names(limits)))
	out := computeUsage(requests, limits)
	out[corev1.ResourcePods] = one
	return out
}

// chargedPod says whether a pod still uses quota: not once it has
// finished, nor once it is stuck terminating past its grace period (a lost
// node must not keep its owner from scaling up elsewhere).
func chargedPod(p *corev1.Pod, now time.Time) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if p.DeletionTimestamp != nil && p.DeletionGracePeriodSeconds != nil {
		grace := time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
		if now.After(p.DeletionTimestamp.Add(grace)) {
			return false
		}
	}
	return true
}

// computeUsage names requests and limits as quota does: requests.<r> and
// limits.<r>, plus the bare cpu and memory that mean their requests.
func computeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range requests {
		out[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+string(name))] = q.DeepCopy()
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage {
			out[name] = q.DeepCopy()
		}
	}
	for name, q := range limits {
		out[corev1.ResourceName("limits."+string(name))] = q.DeepCopy()
	}
	return out
}

func requestsOf(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests }
func limitsOf(c *corev1.Container) corev1.ResourceList   { return c.Resources.Limits }

// podResources adds up what a pod's containers ask for, as the scheduler
// does: app containers and sidecars (restartable init containers) run
// together, a plain init container runs alone beside the sidecars started
// before it, and the pod needs the larger of the two. Pod-level resources,
// when set, are what the pod asks for.
func podResources(p *corev1.Pod, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	if p.Spec.Resources != nil {
		if l := of(&corev1.Container{Resources: *p.Spec.Resources}); len(l) > 0 {
			return add(l, nil)
		}
	}
	sum := corev1.ResourceList{}
	for i := range p.Spec.Containers {
		sum = add(sum, of(&p.Spec.Containers[i]))
	}
	sidecars, initPeak := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		var need corev1.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars = add(sidecars, of(c))
			need = sidecars
		} else {
			need = add(of(c), sidecars)
		}
		initPeak = maxOf(initPeak, need)
	}
	return maxOf(add(sum, sidecars), initPeak)
}

// maxOf is the larger of a and b, resource by resource.
func maxOf(a, b corev1.ResourceList) corev1.ResourceList {
	out := add(a, nil)
	for name, q := range b {
		if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// constrainedResources are those a quota makes every container state: kube
// kept this from before QoS existed, for cpu and memory only.
var constrainedResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory,
}

// podConstraints refuses a pod that does not state, in every container,
// each of the constrained resources the quota limits ("must specify
// limits.cpu for: app"). Pod-level resources satisfy it for the pod.
func podConstraints(p *corev1.Pod, limited []corev1.ResourceName) error {
	required := map[corev1.ResourceName]bool{}
	for _, name := range limited {
		for _, c := range constrainedResources {
			if name == c {
				required[name] = true
			}
		}
	}
	if len(required) == 0 || p.Spec.Resources != nil {
		return nil
	}
	missing := map[corev1.ResourceName][]string{}
	containers := append(append([]corev1.Container{}, p.Spec.Containers...), p.Spec.InitContainers...)
	for i := range containers {
		stated := computeUsage(containers[i].Resources.Requests, containers[i].Resources.Limits)
		for name := range required {
			if _, ok := stated[name]; !ok {
				missing[name] = append(missing[name], containers[i].Name)
			}
		}
	}
	return missingError(missing)
}

// missingError words the missing resources as kube does, sorted.
func missingError(missing map[corev1.ResourceName][]string) error {
	if len(missing) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(missing))
	for name, containers := range missing {
		sort.Strings(containers)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", name, strings.Join(containers, ",")))
	}
	sort.Strings(msgs)
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}
