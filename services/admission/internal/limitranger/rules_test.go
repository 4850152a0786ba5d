package limitranger

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// The rules of each half cover every request it defaults or refuses; it
// allows as is whatever they leave out, though a LimitRange would default
// or refuse it.
func TestRulesCoverDecisions(t *testing.T) {
	lr := limitRange("lr",
		corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: list("cpu", "500m"), Max: list("cpu", "1")},
		corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim, Max: list("storage", "10Gi")})
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	rules := Rules()
	bare := pod(container("c", nil, nil))
	big := pod(container("c", list("cpu", "2"), list("cpu", "2")))
	claimAttrs := func(op admissionv1.Operation, c, old *corev1.PersistentVolumeClaim) *admission.Attributes {
		var o, n any
		if old != nil {
			o = old
		}
		if c != nil {
			n = c
		}
		return plugintest.Attrs(t, op, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "data", n, o)
	}
	podAttrs := func(op admissionv1.Operation, p, old *corev1.Pod) *admission.Attributes {
		var o, n any
		if old != nil {
			o = old
		}
		if p != nil {
			n = p
		}
		return plugintest.Attrs(t, op, "", "v1", "Pod", "pods", "ns", "web", n, o)
	}

	plugintest.Asked(t, rules.Mutating, plugintest.CreatePod(t, bare))
	if res := plugintest.Admit(t, m, plugintest.CreatePod(t, bare)); len(res.Patch) == 0 {
		t.Error("the mutating half did not default a new pod")
	}
	refused := []*admission.Attributes{plugintest.CreatePod(t, big), claimAttrs(admissionv1.Create, claim("20Gi"), nil), claimAttrs(admissionv1.Update, claim("20Gi"), claim("5Gi"))}
	plugintest.Asked(t, rules.Validating, refused...)
	for _, a := range refused {
		if res := plugintest.Admit(t, v, a); res.Allowed {
			t.Errorf("%s %s allowed, though the rules say the plugin acts on it", a.Operation, a.Resource.Resource)
		}
	}

	plugintest.Unasked(t, m, rules.Mutating,
		podAttrs(admissionv1.Update, bare, bare),
		plugintest.Sub(podAttrs(admissionv1.Create, bare, nil), "binding"),
		claimAttrs(admissionv1.Create, claim("20Gi"), nil),
		claimAttrs(admissionv1.Update, claim("20Gi"), claim("5Gi")),
	)
	plugintest.Unasked(t, v, rules.Validating,
		podAttrs(admissionv1.Update, big, bare),
		plugintest.Sub(podAttrs(admissionv1.Update, big, bare), "ephemeralcontainers"),
		podAttrs(admissionv1.Delete, nil, big),
		plugintest.Sub(claimAttrs(admissionv1.Update, claim("20Gi"), claim("5Gi")), "status"),
		claimAttrs(admissionv1.Delete, nil, claim("20Gi")),
	)
}
