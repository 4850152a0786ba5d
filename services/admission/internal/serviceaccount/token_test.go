package serviceaccount

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// tokenVolumes are the pod's kube-api-access volumes.
func tokenVolumes(p *corev1.Pod) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range p.Spec.Volumes {
		if strings.HasPrefix(v.Name, TokenVolumePrefix) {
			out = append(out, v)
		}
	}
	return out
}

// mountedAt is the name of the volume c mounts at the token path.
func mountedAt(c corev1.Container) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath == TokenMountPath && m.ReadOnly {
			return m.Name
		}
	}
	return ""
}

func TestTokenVolume(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	})))
	if denial != nil {
		t.Fatalf("denied: %+v", denial.Status)
	}
	vols := tokenVolumes(out)
	if len(vols) != 1 || len(out.Spec.Volumes) != 2 || vols[0].Projected == nil || len(vols[0].Projected.Sources) != 3 {
		t.Fatalf("volumes %+v", out.Spec.Volumes)
	}
	src := vols[0].Projected.Sources
	if src[0].ServiceAccountToken == nil || src[0].ServiceAccountToken.Path != "token" ||
		src[1].ConfigMap == nil || src[1].ConfigMap.Name != "kube-root-ca.crt" || src[2].DownwardAPI == nil {
		t.Fatalf("sources %+v", src)
	}
	for _, c := range append(out.Spec.InitContainers, out.Spec.Containers...) {
		if mountedAt(c) != vols[0].Name {
			t.Fatalf("container %s mounts %+v", c.Name, c.VolumeMounts)
		}
	}
	if len(out.Spec.Containers[0].VolumeMounts) != 2 {
		t.Fatalf("existing mount lost: %+v", out.Spec.Containers[0].VolumeMounts)
	}
}

func TestTokenVolumeOptOut(t *testing.T) {
	off := &corev1.ServiceAccount{}
	off.Namespace, off.Name, off.AutomountServiceAccountToken = "ns", "off", ptr.To(false)
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default"), off})
	cases := []struct {
		name  string
		edit  func(*corev1.Pod)
		mount bool
	}{
		{"pod opts out", func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }, false},
		{"account opts out", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "off" }, false},
		{"pod overrides account", func(p *corev1.Pod) {
			p.Spec.ServiceAccountName = "off"
			p.Spec.AutomountServiceAccountToken = ptr.To(true)
		}, true},
		{"path taken", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, denial := both(t, m, v, plugintest.CreatePod(t, pod(c.edit)))
			if denial != nil {
				t.Fatalf("denied: %+v", denial.Status)
			}
			if got := len(tokenVolumes(out)) == 1; got != c.mount {
				t.Fatalf("token volume %v, want %v: %+v", got, c.mount, out.Spec.Volumes)
			}
		})
	}
}

// A pod that already has a token volume gets it mounted, not a second one.
func TestTokenVolumeReused(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: TokenVolumePrefix + "abcde", VolumeSource: corev1.VolumeSource{Projected: tokenVolumeSource()}}}
	})))
	if denial != nil {
		t.Fatalf("denied: %+v", denial.Status)
	}
	if vols := tokenVolumes(out); len(vols) != 1 || mountedAt(out.Spec.Containers[0]) != TokenVolumePrefix+"abcde" {
		t.Fatalf("volumes %+v, mounts %+v", out.Spec.Volumes, out.Spec.Containers[0].VolumeMounts)
	}
}
