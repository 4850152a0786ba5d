package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	admv1 "k8s.io/api/admissionregistration/v1"
)

// Twelve validations, each under the per-call limit, cost more than a
// binding's budget together: the ones past it are not run, and the
// request is refused under failurePolicy Fail, as kube does.
func TestValidationsShareTheBindingsBudget(t *testing.T) {
	pol := deploymentPolicy("p", "true")
	pol.Spec.Validations = nil
	for i := range 12 {
		// Priced by the lengths of the string and of the expression
		// (about 920,000 each here), matched in linear time.
		re := "^(?:" + strings.Repeat(fmt.Sprintf("%c|", 'b'+i), 98) + "a)*$"
		pol.Spec.Validations = append(pol.Spec.Validations, admv1.Validation{Expression: fmt.Sprintf("object.metadata.labels.big.matches('%s')", re)})
	}
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))

	if res := e.admit(deployment(t, "default", "small", 1, map[string]string{"big": strings.Repeat("a", 1000)})); !res.Allowed {
		t.Fatalf("a small label refused: %+v", res.Status)
	}
	start := time.Now()
	res := e.admit(deployment(t, "default", "web", 1, map[string]string{"big": strings.Repeat("a", 180000)}))
	if res.Allowed || !strings.Contains(res.Status.Message, "validation failed due to running out of cost budget, no further validation rules will be run") {
		t.Fatalf("twelve costly validations: allowed %v, %+v", res.Allowed, res.Status)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the validations ran for %v", took)
	}
}
