package escalation

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// The rules cover the writes the plugin refuses; it allows as is whatever
// they leave out, though it would grant what the writer does not hold.
func TestRulesCoverDecisions(t *testing.T) {
	e := newBindingEnv(t)
	rules := Rules()
	if len(rules.Mutating) != 0 {
		t.Errorf("mutating rules %v for a validating plugin", rules.Mutating)
	}
	holder := user("holder")
	bigRole := role("ns", "r", rule(all, "*", "*"))
	bigClusterRole := clusterRole("r", rule(all, "*", "*"))
	toAdmin := roleBinding("ns", "b", refTo("ClusterRole", "admin"))
	clusterToAdmin := clusterRoleBinding("b", refTo("ClusterRole", "admin"))
	refused := []*admission.Attributes{
		attrs(admissionv1.Create, "roles", "ns", "r", holder, bigRole, nil),
		attrs(admissionv1.Update, "roles", "ns", "r", holder, bigRole, role("ns", "r")),
		attrs(admissionv1.Create, "clusterroles", "", "r", holder, bigClusterRole, nil),
		attrs(admissionv1.Update, "clusterroles", "", "r", holder, bigClusterRole, clusterRole("r")),
		attrs(admissionv1.Create, "rolebindings", "ns", "b", holder, toAdmin, nil),
		attrs(admissionv1.Update, "rolebindings", "ns", "b", holder, toAdmin, roleBinding("ns", "b", refTo("Role", "reader"))),
		attrs(admissionv1.Create, "clusterrolebindings", "", "b", holder, clusterToAdmin, nil),
		attrs(admissionv1.Update, "clusterrolebindings", "", "b", holder, clusterToAdmin, clusterRoleBinding("b", refTo("ClusterRole", "view"))),
	}
	plugintest.Asked(t, rules.Validating, refused...)
	for _, a := range refused {
		if res := e.admit(t, a); res.Allowed {
			t.Errorf("%s %s allowed, though the rules say the plugin acts on it", a.Operation, a.Resource.Resource)
		}
	}

	otherGroup := attrs(admissionv1.Create, "roles", "ns", "r", holder, bigRole, nil)
	otherGroup.Resource.Group = "example.com"
	plugintest.Unasked(t, e.admitter, rules.Validating,
		attrs(admissionv1.Delete, "roles", "ns", "r", holder, nil, bigRole),
		attrs(admissionv1.Delete, "clusterrolebindings", "", "b", holder, nil, clusterToAdmin),
		plugintest.Sub(attrs(admissionv1.Update, "clusterroles", "", "r", holder, bigClusterRole, clusterRole("r")), "status"),
		attrs(admissionv1.Create, "widgets", "ns", "w", holder, &metav1.PartialObjectMetadata{}, nil),
		otherGroup,
	)
}
