package kubeobject

import (
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

func rule(group, version, resource string) admission.Rule {
	return admission.Rule{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
	}}
}

// asks tells whether rules ask about a create of gvr.
func asks(rules []admission.Rule, group, version, resource string) bool {
	return admission.Matches(rules, &admission.Attributes{Operation: "CREATE",
		Resource: metav1.GroupVersionResource{Group: group, Version: version, Resource: resource}})
}

// Published under Equivalent, a rule asks about its resources in every
// version and about their equivalents in other groups, and nothing more:
// a rule on a whole group does not reach into others.
func TestWiden(t *testing.T) {
	e := &Equivalents{discovery: &fakeResources{lists: discovered}}
	for _, c := range []struct {
		name string
		rule admission.Rule
		asks [][3]string
		not  [][3]string
	}{
		{"events.k8s.io Events reach core ones", rule("events.k8s.io", "v1", "events"),
			[][3]string{{"events.k8s.io", "v1", "events"}, {"", "v1", "events"}}, [][3]string{{"", "v1", "pods"}}},
		{"another version of the group", rule("autoscaling", "v2", "horizontalpodautoscalers"),
			[][3]string{{"autoscaling", "v1", "horizontalpodautoscalers"}}, [][3]string{{"", "v1", "horizontalpodautoscalers"}}},
		{"a whole group stays in it", rule("apps", "v1", "*"),
			[][3]string{{"apps", "v1", "deployments"}}, [][3]string{{"", "v1", "events"}, {"", "v1", "configmaps"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := e.Widen([]admission.Rule{c.rule})
			for _, r := range c.asks {
				if !asks(got, r[0], r[1], r[2]) {
					t.Errorf("does not ask about %v: %+v", r, got)
				}
			}
			for _, r := range c.not {
				if asks(got, r[0], r[1], r[2]) {
					t.Errorf("asks about %v: %+v", r, got)
				}
			}
		})
	}
	broken := &Equivalents{discovery: &fakeResources{err: errors.New("down")}}
	if got := broken.Widen([]admission.Rule{rule("apps", "v1", "deployments")}); !asks(got, "extensions", "v1beta1", "deployments") {
		t.Errorf("without discovery: %+v, want every group", got)
	}
}
