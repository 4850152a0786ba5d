package validation

import (
	"slices"
	"testing"

	admv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metav1Selector selects everything.
var metav1Selector = metav1.LabelSelector{}

func TestValidateRuleResources(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resources []string
		want      []string
	}{
		{"plain", []string{"pods", "pods/status"}, nil},
		{"everything", []string{"*/*"}, nil},
		{"required", nil, []string{"r: Required value"}},
		{"empty entry", []string{"pods", ""}, []string{"r[1]: Required value"}},
		{"everything alone", []string{"*/*", "pods"}, []string{"r: Invalid value"}},
		{"star with plain", []string{"*", "pods"}, []string{"r: Invalid value"}},
		{"star with subresources", []string{"*", "pods/status"}, nil},
		{"covered subresource", []string{"pods/*", "pods/status"}, []string{"r[1]: Invalid value"}},
		{"covered resource", []string{"*/status", "pods/status"}, []string{"r[1]: Invalid value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(validateRuleResources(tc.resources, field.NewPath("r")))
			if !slices.Equal(got, append([]string{}, tc.want...)) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateMatchResources(t *testing.T) {
	equivalent, exact := admv1.Equivalent, admv1.MatchPolicyType("Fuzzy")
	rule := admv1.NamedRuleWithOperations{
		ResourceNames: []string{"a", "a"},
		RuleWithOperations: admv1.RuleWithOperations{Operations: []admv1.OperationType{admv1.OperationAll, admv1.Create},
			Rule: admv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}},
	}
	for _, tc := range []struct {
		name string
		mr   *admv1.MatchResources
		want []string
	}{
		{"nil", nil, []string{}},
		{"defaults missing", &admv1.MatchResources{},
			[]string{"m.matchPolicy: Required value", "m.namespaceSelector: Required value", "m.objectSelector: Required value"}},
		{"bad policy and rule", &admv1.MatchResources{MatchPolicy: &exact, NamespaceSelector: &metav1Selector,
			ObjectSelector: &metav1Selector, ExcludeResourceRules: []admv1.NamedRuleWithOperations{rule}},
			[]string{"m.excludeResourceRules[0].operations: Invalid value",
				"m.excludeResourceRules[0].resourceNames[1]: Duplicate value", "m.matchPolicy: Unsupported value"}},
		{"valid", &admv1.MatchResources{MatchPolicy: &equivalent, NamespaceSelector: &metav1Selector,
			ObjectSelector: &metav1Selector}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(validateMatchResources(tc.mr, field.NewPath("m")))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
