package controller_test

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
)

// A ValidatingAdmissionPolicy whose CEL names a field its kind does not
// have gets kube's warning in status.typeChecking; a sound one gets an
// empty typeChecking, as kube-controller-manager's controller writes them.
func TestPolicyTypeChecking(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	runConfigured(t, controller.Config{REST: cfg, Identity: "r1", Controllers: []string{"validatingadmissionpolicy-status-controller"}})
	policy := func(name, expr string) {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: expr}},
			}}
		if _, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	policy("typo", "object.spec.replicaz > 1")
	policy("sound", "object.spec.replicas > 1")
	checked := func(name string) *admissionregistrationv1.TypeChecking {
		var tc *admissionregistrationv1.TypeChecking
		polltest.UntilContext(t, controllerWait, name+" type-checked", func(ctx context.Context) (bool, error) {
			p, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			tc = p.Status.TypeChecking
			return tc != nil && p.Status.ObservedGeneration == p.Generation, nil
		})
		return tc
	}
	warnings := checked("typo").ExpressionWarnings
	if len(warnings) != 1 || warnings[0].FieldRef != "spec.validations[0].expression" ||
		!strings.Contains(warnings[0].Warning, "undefined field 'replicaz'") {
		t.Errorf("typo: %+v", warnings)
	}
	if w := checked("sound").ExpressionWarnings; len(w) != 0 {
		t.Errorf("sound: %+v", w)
	}
}
