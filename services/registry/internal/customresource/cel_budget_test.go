package customresource

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Twelve rules on each of ten strings of 40,000 characters: each rule is
// estimated at 8 million, under kube's per-rule limit, and all twelve
// under its per-CRD limit, so the CRD is accepted. Run on an object that
// fills the bounds, they would cost 24 million; the object's budget of 10
// million stops them.
func TestRulesStopAtTheObjectsBudget(t *testing.T) {
	var rules []string
	for i := range 12 {
		// A regular expression of 204 characters, matched in linear time
		// but priced by its length.
		re := "^(?:" + strings.Repeat(fmt.Sprintf("%c|", 'a'+i), 98) + "a)*$"
		rules = append(rules, fmt.Sprintf("{rule: \"self.matches('%s')\"}", re))
	}
	schemaYAML := `
type: object
properties:
  spec:
    type: object
    properties:
      items:
        type: array
        maxItems: 10
        items:
          type: string
          maxLength: 40000
          x-kubernetes-validations: [` + strings.Join(rules, ", ") + `]
`
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(schemaYAML), &props); err != nil {
		t.Fatal(err)
	}
	s := schemaOf(t, &props)
	object := func(n int) map[string]any {
		items := make([]any, n)
		for i := range items {
			items[i] = strings.Repeat("a", 40000)
		}
		return map[string]any{"apiVersion": "example.com/v1", "kind": "W",
			"metadata": map[string]any{"name": "a", "namespace": "default"}, "spec": map[string]any{"items": items}}
	}

	if errs := s.Validate(object(2), nil); len(errs) != 0 {
		t.Fatalf("two items, within the budget: %v", errs)
	}
	start := time.Now()
	errs := s.Validate(object(10), nil)
	took := time.Since(start)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(),
		"spec.items[4]: Invalid value: \"string\": validation failed due to running out of cost budget, no further validation rules will be run") {
		t.Errorf("ten items: %v", errs)
	}
	if took > 5*time.Second {
		t.Errorf("the rules ran for %v", took)
	}
}
