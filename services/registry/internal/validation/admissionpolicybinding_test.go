package validation

import "testing"

const validBinding = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-test}
spec:
  policyName: replica-limit
  validationActions: [Deny, Audit]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    matchPolicy: Equivalent
    namespaceSelector: {matchLabels: {env: test}}
    objectSelector: {}
`

func TestValidateValidatingAdmissionPolicyBinding(t *testing.T) {
	base := object(t, validBinding)
	runValidation(t, ValidateValidatingAdmissionPolicyBinding, []validationCase{
		{name: "valid", obj: base},
		{name: "no matchResources", obj: with(t, base, edit{"spec.matchResources", removed})},
		{name: "policyName required", obj: with(t, base, edit{"spec.policyName", removed}),
			want: []string{"spec.policyName: Required value"}},
		{name: "policyName format", obj: with(t, base, edit{"spec.policyName", "Replica Limit"}),
			want: []string{"spec.policyName: Invalid value"}},
		{name: "actions required", obj: with(t, base, edit{"spec.validationActions", removed}),
			want: []string{"spec.validationActions: Required value"}},
		{name: "action enum", obj: with(t, base, edit{"spec.validationActions", []any{"Block"}}),
			want: []string{"spec.validationActions[0]: Unsupported value"}},
		{name: "action duplicate", obj: with(t, base, edit{"spec.validationActions", []any{"Audit", "Audit"}}),
			want: []string{"spec.validationActions[1]: Duplicate value"}},
		{name: "not Deny and Warn", obj: with(t, base, edit{"spec.validationActions", []any{"Deny", "Warn"}}),
			want: []string{"spec.validationActions: Invalid value"}},
		{name: "paramRef name or selector", obj: with(t, base, edit{"spec.paramRef.name", removed}),
			want: []string{"spec.paramRef: Required value"}},
		{name: "paramRef not both", obj: with(t, base, edit{"spec.paramRef.selector", map[string]any{}}),
			want: []string{"spec.paramRef.name: Forbidden", "spec.paramRef.selector: Forbidden"}},
		{name: "paramRef action required", obj: with(t, base, edit{"spec.paramRef.parameterNotFoundAction", removed}),
			want: []string{"spec.paramRef.parameterNotFoundAction: Required value"}},
		{name: "paramRef action enum", obj: with(t, base, edit{"spec.paramRef.parameterNotFoundAction", "Ignore"}),
			want: []string{"spec.paramRef.parameterNotFoundAction: Unsupported value"}},
		{name: "matchResources checked", obj: with(t, base, edit{"spec.matchResources.matchPolicy", "Fuzzy"}),
			want: []string{"spec.matchResources.matchPolicy: Unsupported value"}},
	})
}

func TestDefaultValidatingAdmissionPolicyBinding(t *testing.T) {
	base := object(t, validBinding)
	runDefaults(t, DefaultValidatingAdmissionPolicyBinding, []defaultCase{
		{name: "matchResources", obj: with(t, base, edit{"spec.matchResources", map[string]any{}}), want: map[string]any{
			"spec.matchResources.matchPolicy":       "Equivalent",
			"spec.matchResources.namespaceSelector": map[string]any{},
			"spec.matchResources.objectSelector":    map[string]any{},
		}},
		{name: "user values kept", obj: base, want: map[string]any{
			"spec.matchResources.namespaceSelector": map[string]any{"matchLabels": map[string]any{"env": "test"}},
		}},
		{name: "none invented", obj: with(t, base, edit{"spec.matchResources", removed}),
			want: map[string]any{"spec.matchResources": nil}},
	})
}
