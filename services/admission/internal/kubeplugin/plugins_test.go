package kubeplugin

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// Every kube plugin of the table passes kube's initialization with the
// service's dependencies and has exactly the halves its rules name.
func TestEveryPluginInitializes(t *testing.T) {
	for _, p := range []Plugin{NodeRestriction, TaintNodesByCondition, AlwaysPullImages, PodSecurity, Priority,
		DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PodGroupProtection,
		PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest,
		CertificateSubjectRestriction, DefaultIngressClass, PodTopologyLabels, NodeDeclaredFeatureValidator, PodResizeValidator} {
		deps, _ := plugintest.Deps(t)
		m, v, err := p.NewPhases(deps)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if (m != nil) != (len(p.Rules().Mutating) > 0) || (v != nil) != (len(p.Rules().Validating) > 0) {
			t.Errorf("%s: halves (%v, %v) do not fit its rules %+v", p.Name, m, v, p.Rules())
		}
	}
}

// AlwaysPullImages, off by default, patches every container's pull
// policy when enabled.
func TestAlwaysPullImages(t *testing.T) {
	m, v := phases(t, AlwaysPullImages)
	attrs := plugintest.CreatePod(t, pod("ns", corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i", ImagePullPolicy: corev1.PullNever}}}))
	res := plugintest.Admit(t, m, attrs)
	got := &corev1.Pod{}
	plugintest.Patched(t, attrs, res, got)
	if got.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("pull policy %q, patch %s", got.Spec.Containers[0].ImagePullPolicy, res.Patch)
	}
	if res := plugintest.Admit(t, v, attrs); res.Allowed {
		t.Error("the validating half allowed a pod that does not always pull")
	}
}
