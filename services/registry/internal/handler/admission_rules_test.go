package handler

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// encodeCount is an object that counts how often it is encoded.
type encodeCount struct{ n *int }

func (c encodeCount) MarshalJSON() ([]byte, error) {
	*c.n++
	return []byte(`{}`), nil
}

// quietNamespaces says every namespace is Active and holds nothing.
type quietNamespaces struct{}

func (quietNamespaces) Phase(context.Context, string) (string, bool) { return "Active", true }

func (quietNamespaces) Holds(context.Context, string, metav1.GroupResource) (bool, bool) {
	return false, true
}

// Each phase is asked only about writes its own rules match, and a write
// it is not asked about has its objects never encoded; while the rules are
// unknown, or when there are none to consult, every write is asked about.
func TestAdmissionAsksWhatItsRulesMatch(t *testing.T) {
	podCreates := admission.Rule{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods"}},
	}}
	inTerminating := podCreates
	inTerminating.Namespace = &admission.NamespaceCondition{Phases: []string{"Terminating"}}
	known := func(r admission.Rules) func(context.Context) (admission.Rules, bool) {
		return func(context.Context) (admission.Rules, bool) { return r, true }
	}
	unknown := func(context.Context) (admission.Rules, bool) { return admission.Rules{}, false }
	for _, tc := range []struct {
		name     string
		rules    func(context.Context) (admission.Rules, bool)
		resource string
		// wantMutating and wantValidating: whether each phase is asked.
		wantMutating, wantValidating bool
	}{
		{"no rules", nil, "configmaps", true, true},
		{"unknown rules", unknown, "configmaps", true, true},
		{"matching", known(admission.Rules{Mutating: []admission.Rule{podCreates}, Validating: []admission.Rule{podCreates}}), "pods", true, true},
		{"not matching", known(admission.Rules{Mutating: []admission.Rule{podCreates}, Validating: []admission.Rule{podCreates}}), "configmaps", false, false},
		{"one phase's rules", known(admission.Rules{Validating: []admission.Rule{podCreates}}), "pods", false, true},
		{"namespace not in the state", known(admission.Rules{Mutating: []admission.Rule{inTerminating}}), "pods", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := map[admission.Phase]int{}
			answer := func(p admission.Phase) admission.Admitter {
				return admission.AdmitterFunc(func(context.Context, *admission.Attributes) (*admission.Result, error) {
					asked[p]++
					return admission.Deny(403, "asked"), nil
				})
			}
			adm := Admission{Mutating: answer(admission.PhaseMutating), Validating: answer(admission.PhaseValidating), Rules: tc.rules}
			for p, want := range map[admission.Phase]bool{admission.PhaseMutating: tc.wantMutating, admission.PhaseValidating: tc.wantValidating} {
				encoded := 0
				rv := &review{op: admissionv1.Create, name: "x", namespace: "ns", newObj: encodeCount{&encoded}}
				attrs := &admission.Attributes{Operation: admissionv1.Create, Name: "x", Namespace: "ns",
					Resource: metav1.GroupVersionResource{Version: "v1", Resource: tc.resource}}
				res, err := adm.admit(context.Background(), p, attrs, rv, quietNamespaces{})
				if err != nil {
					t.Fatal(err)
				}
				if got := asked[p] == 1; got != want || res.Allowed == want {
					t.Errorf("%v: asked %v (%+v), want %v", p, got, res, want)
				}
				if got := encoded == 1; got != want {
					t.Errorf("%v: object encoded %d times, asked %v", p, encoded, want)
				}
			}
		})
	}
}
