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

// A rule's namespace condition narrows what a Filter asks about, as far as
// the states carried by the context can tell, and never when they cannot.
func TestFilterNamespaceConditions(t *testing.T) {
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
			ctx := context.Background()
			if tc.states != nil {
				ctx = WithNamespaceStates(ctx, tc.states)
			}
			inner := record(requireLabel("app"))
			f := Filter(inner, knownRules(tc.rule))
			a := req(admissionv1.Create, "", "v1", "configmaps", "", tc.ns)
			if got := Wants(ctx, f, a); got != tc.want {
				t.Errorf("Wants = %v, want %v", got, tc.want)
			}
			if _, err := f.Admit(ctx, a); err != nil {
				t.Fatal(err)
			}
			if asked := len(inner.calls()) == 1; asked != tc.want {
				t.Errorf("asked = %v, want %v", asked, tc.want)
			}
		})
	}
}

// Wants sees through phases and chains: a chain wants a request when any
// admitter in it may, and an admitter that is not a Filter always may.
func TestWantsThroughChains(t *testing.T) {
	ctx := context.Background()
	pods := rule(ops(opCreate), strs(""), strs("*"), strs("pods"), "")
	cm := req(admissionv1.Create, "", "v1", "configmaps", "", "ns")
	onlyPods := Mutating(Filter(Mutating(addLabel("a", "b")), knownRules(pods)))
	c, err := Chain(onlyPods, Filter(requireLabel("a"), knownRules(pods)))
	if err != nil {
		t.Fatal(err)
	}
	if Wants(ctx, c, cm) {
		t.Error("a chain of filters for pods wants a config map")
	}
	if !Wants(ctx, c, req(admissionv1.Create, "", "v1", "pods", "", "ns")) {
		t.Error("a chain of filters for pods does not want a pod")
	}
	c2, _ := Chain(onlyPods, requireLabel("a"))
	if !Wants(ctx, c2, cm) {
		t.Error("a chain with an unfiltered admitter does not want a config map")
	}
}
