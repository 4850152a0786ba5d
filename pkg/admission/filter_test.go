package admission

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

func knownRules(rules ...Rule) RulesFunc {
	return func(context.Context) ([]Rule, bool) { return rules, true }
}

func unknownRules(context.Context) ([]Rule, bool) { return nil, false }

// Filter asks its admitter only about requests the rules match, and about
// everything when the rules are not known.
func TestFilter(t *testing.T) {
	podsCreate := rule(ops(opCreate), strs(""), strs("v1"), strs("pods"), "")
	pods := req(admissionv1.Create, "", "v1", "pods", "", "ns")
	configMaps := req(admissionv1.Create, "", "v1", "configmaps", "", "ns")
	for _, tc := range []struct {
		name      string
		rules     RulesFunc
		req       *Attributes
		wantAsked bool
	}{
		{"matching", knownRules(podsCreate), pods, true},
		{"not matching", knownRules(podsCreate), configMaps, false},
		{"no rules", knownRules(), pods, false},
		{"unknown rules", unknownRules, configMaps, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := record(requireLabel("app"))
			res, err := Filter(inner, tc.rules).Admit(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			asked := len(inner.calls()) == 1
			if asked != tc.wantAsked {
				t.Fatalf("asked = %v, want %v", asked, tc.wantAsked)
			}
			// requireLabel denies these objectless requests: a skipped
			// one is a plain allow.
			if res.Allowed == asked {
				t.Errorf("result %+v when asked = %v", res, asked)
			}
		})
	}
}

// Filter keeps the admitter's phase, so that a filtered mutating webhook
// still has its patches applied by Chain.
func TestFilterKeepsPhase(t *testing.T) {
	if p := PhaseOf(Filter(Mutating(addLabel("a", "b")), unknownRules)); p != PhaseMutating {
		t.Errorf("filtered mutating admitter is %v", p)
	}
	if p := PhaseOf(Filter(requireLabel("a"), unknownRules)); p != PhaseValidating {
		t.Errorf("filtered validating admitter is %v", p)
	}
	c := mustChain(t, Filter(Mutating(addLabel("a", "b")), knownRules(rule(ops(opAll), strs("*"), strs("*"), strs("*"), ""))))
	a := write(admissionv1.Create, pod(), nil)
	res, err := c.Admit(context.Background(), &a)
	if err != nil || !res.Allowed || len(res.Patch) == 0 {
		t.Errorf("chain of a filtered mutating admitter: %+v, %v", res, err)
	}
	if Filter(nil, unknownRules) != nil {
		t.Error("Filter(nil) is not nil")
	}
}
