package serviceaccount

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
)

// isMirrorPod tells a pod a kubelet created for a static manifest.
func isMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// mirrorPodViolation is kube's refusal of a mirror pod that uses an
// account's credentials: a kubelet must not get them that way.
func mirrorPodViolation(pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName != "" {
		return errors.New("a mirror pod may not reference service accounts")
	}
	if referencesSecrets(pod) {
		return errors.New("a mirror pod may not reference secrets")
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil {
				return errors.New("a mirror pod may not use ServiceAccountToken volume projections")
			}
		}
	}
	return nil
}

// referencesSecrets reports whether the pod names any secret: in image
// pull secrets, volumes or containers' environment.
func referencesSecrets(pod *corev1.Pod) bool {
	if len(pod.Spec.ImagePullSecrets) > 0 {
		return true
	}
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			return true
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					return true
				}
			}
		}
	}
	return containersReferenceSecrets(pod)
}

func containersReferenceSecrets(pod *corev1.Pod) bool {
	var all []corev1.Container
	all = append(all, pod.Spec.InitContainers...)
	all = append(all, pod.Spec.Containers...)
	for _, c := range all {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				return true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				return true
			}
		}
	}
	return false
}
