package printers

import (
	"strings"
	"testing"
	"time"
)

func TestAdmissionCells(t *testing.T) {
	pinClock(t)
	hooks := decode(t, `{"metadata":{"name":"hooks","creationTimestamp":"`+ago(3*24*time.Hour)+`"},
		"webhooks":[{"name":"a.example.com"},{"name":"b.example.com"}]}`)
	assertCells(t, MutatingWebhookConfiguration, hooks, map[string]any{"Name": "hooks", "Webhooks": int64(2), "Age": "3d"})
	assertCells(t, ValidatingWebhookConfiguration, hooks, map[string]any{"Webhooks": int64(2)})

	assertCells(t, ValidatingAdmissionPolicy, decode(t, `{"metadata":{"name":"replicas"},
		"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
		  "validations":[{"expression":"object.spec.replicas <= 5"}]}}`),
		map[string]any{"Validations": int64(1), "ParamKind": "v1/ConfigMap"})
	assertCells(t, ValidatingAdmissionPolicy, decode(t, `{"metadata":{"name":"p"},"spec":{}}`),
		map[string]any{"Validations": int64(0), "ParamKind": "<unset>"})

	bindings := []struct {
		spec string
		want string
	}{
		{`{"policyName":"replicas","paramRef":{"name":"limits","namespace":"prod"}}`, "prod/limits"},
		{`{"policyName":"replicas","paramRef":{"name":"limits"}}`, "*/limits"},
		{`{"policyName":"replicas"}`, "<unset>"},
	}
	for _, b := range bindings {
		assertCells(t, ValidatingAdmissionPolicyBinding, decode(t, `{"metadata":{"name":"b"},"spec":`+b.spec+`}`),
			map[string]any{"PolicyName": "replicas", "ParamRef": b.want})
	}
	// With a selector kube prints the Go type's String() form.
	cells := Cells(ValidatingAdmissionPolicyBinding, decode(t, `{"metadata":{"name":"b"},
		"spec":{"policyName":"p","paramRef":{"selector":{"matchLabels":{"env":"prod"}}}}}`))
	if s, _ := cells[2].(string); !strings.HasPrefix(s, "&LabelSelector{") || !strings.Contains(s, "env: prod") {
		t.Errorf("ParamRef with selector = %#v", cells[2])
	}
}
