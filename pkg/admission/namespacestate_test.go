package admission

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeStates is a namespace "busy" with a quota, "quiet" without one,
// "going" terminating, and nothing known of any other.
type fakeStates struct{}

func (fakeStates) Phase(_ context.Context, ns string) (string, bool) {
	switch ns {
	case "busy", "quiet":
		return "Active", true
	case "going":
		return "Terminating", true
	}
	return "", false
}

func (fakeStates) Holds(_ context.Context, ns string, gr metav1.GroupResource) (bool, bool) {
	switch ns {
	case "busy", "quiet", "going":
		return ns == "busy" && gr.Resource == "resourcequotas", true
	}
	return false, false
}

// A rule's namespace condition narrows what it matches, as far as the
// states can tell, and never when they cannot.
func TestMatchesInNamespaceConditions(t *testing.T) {
	withQuota := rule(ops(opCreate), strs("*"), strs("*"), strs("*"), "")
	withQuota.Namespace = &NamespaceCondition{Holding: []metav1.GroupResource{{Resource: "resourcequotas"}}}
	terminating := rule(ops(opCreate), strs("*"), strs("*"), strs("*"), "")
	terminating.Namespace = &NamespaceCondition{Phases: []string{"Terminating"}}
	for _, tc := range []struct {
		name   string
		rule   Rule
		ns     string
		states NamespaceStates
		want   bool
	}{
		{"holding, has a quota", withQuota, "busy", fakeStates{}, true},
		{"holding, no quota", withQuota, "quiet", fakeStates{}, false},
		{"holding, unknown namespace", withQuota, "elsewhere", fakeStates{}, true},
		{"holding, no states", withQuota, "quiet", nil, true},
		{"phase, terminating", terminating, "going", fakeStates{}, true},
		{"phase, active", terminating, "quiet", fakeStates{}, false},
		{"phase, unknown namespace", terminating, "elsewhere", fakeStates{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := req(admissionv1.Create, "", "v1", "configmaps", "", tc.ns)
			if got := MatchesIn(context.Background(), tc.states, []Rule{tc.rule}, a); got != tc.want {
				t.Errorf("MatchesIn = %v, want %v", got, tc.want)
			}
			if !Matches([]Rule{tc.rule}, a) {
				t.Error("Matches checks the namespace condition")
			}
		})
	}
}
