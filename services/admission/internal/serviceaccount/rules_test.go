package serviceaccount

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// The rules cover the new pods both halves act on; the plugin allows as is
// whatever they leave out, though it names no or a missing account.
func TestRulesCoverDecisions(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	rules := Rules()
	bare := pod(nil)
	missing := pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "missing" })

	plugintest.Asked(t, rules.Mutating, plugintest.CreatePod(t, bare))
	if res := plugintest.Admit(t, m, plugintest.CreatePod(t, bare)); len(res.Patch) == 0 {
		t.Error("the mutating half did not default a new pod")
	}
	plugintest.Asked(t, rules.Validating, plugintest.CreatePod(t, missing))
	if res := plugintest.Admit(t, v, plugintest.CreatePod(t, missing)); res.Allowed {
		t.Error("the validating half allowed a pod naming a missing account")
	}

	update := func(p *corev1.Pod) *admission.Attributes {
		return plugintest.Attrs(t, admissionv1.Update, "", "v1", "Pod", "pods", "ns", p.Name, p, p)
	}
	for _, half := range []struct {
		name  string
		admit admission.Admitter
		rules []admission.Rule
	}{{"mutating", m, rules.Mutating}, {"validating", v, rules.Validating}} {
		t.Run(half.name, func(t *testing.T) {
			plugintest.Unasked(t, half.admit, half.rules,
				update(bare),
				update(missing),
				plugintest.Sub(plugintest.CreatePod(t, bare), "binding"),
				plugintest.Sub(plugintest.CreatePod(t, missing), "eviction"),
				plugintest.Attrs(t, admissionv1.Delete, "", "v1", "Pod", "pods", "ns", "web", nil, missing),
				plugintest.Attrs(t, admissionv1.Create, "apps", "v1", "Deployment", "deployments", "ns", "web", missing, nil),
			)
		})
	}
}
