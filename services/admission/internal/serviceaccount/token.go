package serviceaccount

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

const (
	// TokenVolumePrefix starts the name of the projected volume holding the
	// pod's service-account credentials, as in kube (kube-api-access-xxxxx).
	TokenVolumePrefix = "kube-api-access-"
	// TokenMountPath is where every container finds them, the path
	// client-go's in-cluster config reads.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// tokenExpirationSeconds is kube's bound token lifetime for this volume
	// (an hour, plus the seven seconds that mark it as kube-generated).
	tokenExpirationSeconds = 3607
)

// shouldAutomount is kube's rule: the pod's own choice, else the
// account's, else yes.
func shouldAutomount(sa *corev1.ServiceAccount, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountToken adds to patch what kube's plugin adds to a pod: a mount of the
// token volume in every container that has nothing at TokenMountPath, and
// the volume itself (token, cluster CA, namespace) unless the pod already
// has one.
func mountToken(patch *plugin.Patch, pod *corev1.Pod) {
	name, has := tokenVolume(pod)
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: TokenMountPath}
	needed := addMounts(patch, "/spec/initContainers", pod.Spec.InitContainers, mount)
	needed = addMounts(patch, "/spec/containers", pod.Spec.Containers, mount) || needed
	if has || !needed {
		return
	}
	appendTo(patch, "/spec/volumes", len(pod.Spec.Volumes), corev1.Volume{
		Name: name, VolumeSource: corev1.VolumeSource{Projected: tokenVolumeSource()},
	})
}

// tokenVolume is the name of the pod's token volume, and whether it has
// one already; a new name otherwise.
func tokenVolume(pod *corev1.Pod) (string, bool) {
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, TokenVolumePrefix) {
			return v.Name, true
		}
	}
	return TokenVolumePrefix + utilrand.String(5), false
}

// addMounts mounts the volume in each container lacking a mount at
// TokenMountPath, and reports whether any needed it.
func addMounts(patch *plugin.Patch, path string, containers []corev1.Container, mount corev1.VolumeMount) bool {
	needed := false
	for i, c := range containers {
		if hasMountAt(c, TokenMountPath) {
			continue
		}
		appendTo(patch, fmt.Sprintf("%s/%d/volumeMounts", path, i), len(c.VolumeMounts), mount)
		needed = true
	}
	return needed
}

func hasMountAt(c corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// appendTo appends v to the array at path, which holds n items; when it
// is empty it may be absent, so the whole array is set.
func appendTo(patch *plugin.Patch, path string, n int, v any) {
	if n == 0 {
		patch.Add(path, []any{v})
		return
	}
	patch.Add(path+"/-", v)
}

// tokenVolumeSource is kube's projection: a bound token, the cluster's CA
// bundle (ConfigMap kube-root-ca.crt) and the namespace.
func tokenVolumeSource() *corev1.ProjectedVolumeSource {
	return &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](corev1.ProjectedVolumeSourceDefaultMode),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](tokenExpirationSeconds)}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}
}
