package lifecycle

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// The rules cover every request the plugin refuses, and the plugin allows
// as is whatever they leave out, though it is about a terminating or a
// system namespace.
func TestRulesCoverDecisions(t *testing.T) {
	p, _ := newPlugin(t, []runtime.Object{ns("dying", corev1.NamespaceTerminating), ns("default", corev1.NamespaceActive)})
	rules := Rules()
	if len(rules.Mutating) != 0 {
		t.Errorf("mutating rules %v for a validating plugin", rules.Mutating)
	}
	binding := podAttrs(t, admissionv1.Create, "dying")
	binding.SubResource = "binding"
	asked := []*admission.Attributes{
		podAttrs(t, admissionv1.Create, "dying"),
		plugintest.Attrs(t, admissionv1.Create, "", "v1", "ConfigMap", "configmaps", "dying", "c", map[string]any{}, nil),
		plugintest.Attrs(t, admissionv1.Create, "apps", "v1", "Deployment", "deployments", "dying", "d", map[string]any{}, nil),
		binding,
		nsDelete(t, "default"),
	}
	plugintest.Asked(t, rules.Validating, asked...)
	for _, a := range asked {
		if res := plugintest.Admit(t, p, a); res.Allowed {
			t.Errorf("%s %s/%s in %s allowed, though the rules say the plugin acts on it", a.Operation, a.Resource.Resource, a.SubResource, a.Namespace)
		}
	}
	nsUpdate := nsDelete(t, "default")
	nsUpdate.Operation, nsUpdate.Object = admissionv1.Update, nsUpdate.OldObject
	nsFinalize := plugintest.Attrs(t, admissionv1.Update, "", "v1", "Namespace", "namespaces", "default", "default", ns("default", ""), ns("default", ""))
	nsFinalize.SubResource = "finalize"
	plugintest.Unasked(t, p, rules.Validating,
		podAttrs(t, admissionv1.Update, "dying"),
		podAttrs(t, admissionv1.Delete, "dying"),
		// A namespace's requests carry its name as namespace.
		plugintest.Attrs(t, admissionv1.Create, "", "v1", "Namespace", "namespaces", "dying", "dying", ns("dying", ""), nil),
		nsUpdate,
		nsFinalize,
		plugintest.Attrs(t, admissionv1.Create, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "", "r", map[string]any{}, nil),
	)
}
