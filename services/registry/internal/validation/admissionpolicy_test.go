package validation

import (
	"strings"
	"testing"
)

const validPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    matchPolicy: Equivalent
    namespaceSelector: {}
    objectSelector: {}
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments], scope: "*"}
  matchConditions: [{name: not-kube-system, expression: "namespaceObject.metadata.name != 'kube-system'"}]
  variables: [{name: replicas, expression: object.spec.replicas}]
  validations:
  - {expression: "variables.replicas <= params.maxReplicas", message: too many replicas, reason: Invalid}
  auditAnnotations:
  - {key: high-replica-count, valueExpression: "'Deployment ' + object.metadata.name"}
`

func TestValidateValidatingAdmissionPolicy(t *testing.T) {
	base := object(t, validPolicy)
	runValidation(t, ValidateValidatingAdmissionPolicy, []validationCase{
		{name: "valid", obj: base},
		{name: "failurePolicy required", obj: with(t, base, edit{"spec.failurePolicy", removed}),
			want: []string{"spec.failurePolicy: Required value"}},
		{name: "failurePolicy enum", obj: with(t, base, edit{"spec.failurePolicy", "Retry"}),
			want: []string{"spec.failurePolicy: Unsupported value"}},
		{name: "matchConstraints required", obj: with(t, base, edit{"spec.matchConstraints", removed}),
			want: []string{"spec.matchConstraints: Required value"}},
		{name: "resourceRules required", obj: with(t, base, edit{"spec.matchConstraints.resourceRules", removed}),
			want: []string{"spec.matchConstraints.resourceRules: Required value"}},
		{name: "rule operations", obj: with(t, base, edit{"spec.matchConstraints.resourceRules[0].operations", removed}),
			want: []string{"spec.matchConstraints.resourceRules[0].operations: Required value"}},
		{name: "something to do", obj: with(t, base, edit{"spec.validations", removed}, edit{"spec.auditAnnotations", removed}),
			want: []string{"spec.validations: Required value", "spec.auditAnnotations: Required value"}},
		{name: "audit annotations alone", obj: with(t, base, edit{"spec.validations", removed})},
		{name: "expression required", obj: with(t, base, edit{"spec.validations[0].expression", "  "}),
			want: []string{"spec.validations[0].expression: Required value"}},
		{name: "message on one line", obj: with(t, base, edit{"spec.validations[0].message", "too\nmany"}),
			want: []string{"spec.validations[0].message: Invalid value"}},
		{name: "reason enum", obj: with(t, base, edit{"spec.validations[0].reason", "Conflict"}),
			want: []string{"spec.validations[0].reason: Unsupported value"}},
		{name: "audit key", obj: with(t, base, edit{"spec.auditAnnotations[0].key", "bad key"}),
			want: []string{"spec.auditAnnotations[0].key: Invalid value"}},
		{name: "audit value", obj: with(t, base, edit{"spec.auditAnnotations[0].valueExpression", strings.Repeat("x", 5*1024+1)}),
			want: []string{"spec.auditAnnotations[0].valueExpression: Required value"}},
		{name: "paramKind apiVersion", obj: with(t, base, edit{"spec.paramKind.apiVersion", "Rules.Example.com/v1"}),
			want: []string{"spec.paramKind.apiVersion: Invalid value"}},
		{name: "paramKind kind", obj: with(t, base, edit{"spec.paramKind.kind", removed}),
			want: []string{"spec.paramKind.kind: Required value"}},
		{name: "variable name", obj: with(t, base, edit{"spec.variables[0].name", "in"}),
			want: []string{"spec.variables[0].name: Invalid value"}},
		{name: "match condition duplicate", obj: with(t, base, edit{"spec.matchConditions", []any{
			map[string]any{"name": "a", "expression": "true"}, map[string]any{"name": "a", "expression": "true"}}}),
			want: []string{"spec.matchConditions[1].name: Duplicate value"}},
		{name: "validation CEL", obj: with(t, base, edit{"spec.validations[0].expression", "object.spec.replicas <"}),
			want: []string{"spec.validations[0].expression: Invalid value"}},
		{name: "validation returns bool", obj: with(t, base, edit{"spec.validations[0].expression", "'yes'"}),
			want: []string{"spec.validations[0].expression: Invalid value"}},
		{name: "messageExpression CEL", obj: with(t, base, edit{"spec.validations[0].messageExpression", "objekt.name"}),
			want: []string{"spec.validations[0].messageExpression: Invalid value"}},
		{name: "match condition CEL", obj: with(t, base, edit{"spec.matchConditions[0].expression", "1 +"}),
			want: []string{"spec.matchConditions[0].expression: Invalid value"}},
		{name: "variable CEL", obj: with(t, base, edit{"spec.variables[0].expression", "object.spec.("}),
			want: []string{"spec.variables[0].expression: Invalid value"}},
		{name: "audit value CEL", obj: with(t, base, edit{"spec.auditAnnotations[0].valueExpression", "1"}),
			want: []string{"spec.auditAnnotations[0].valueExpression: Invalid value"}},
	})
}

func TestDefaultValidatingAdmissionPolicy(t *testing.T) {
	bare := object(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
    excludeResourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments], scope: Cluster}]
  validations: [{expression: "true"}]
`)
	runDefaults(t, DefaultValidatingAdmissionPolicy, []defaultCase{
		{name: "bare", obj: bare, want: map[string]any{
			"spec.failurePolicy":                                  "Fail",
			"spec.matchConstraints.matchPolicy":                   "Equivalent",
			"spec.matchConstraints.namespaceSelector":             map[string]any{},
			"spec.matchConstraints.objectSelector":                map[string]any{},
			"spec.matchConstraints.resourceRules[0].scope":        "*",
			"spec.matchConstraints.excludeResourceRules[0].scope": "Cluster",
		}},
		{name: "user values kept", obj: with(t, bare, edit{"spec.failurePolicy", "Ignore"}, edit{"spec.matchConstraints.matchPolicy", "Exact"}),
			want: map[string]any{"spec.failurePolicy": "Ignore", "spec.matchConstraints.matchPolicy": "Exact"}},
		{name: "no matchConstraints invented", obj: with(t, bare, edit{"spec.matchConstraints", removed}),
			want: map[string]any{"spec.matchConstraints": nil}},
	})
	// The defaulted policy is valid.
	obj := bare.DeepCopy()
	DefaultValidatingAdmissionPolicy(obj)
	if errs := ValidateValidatingAdmissionPolicy(obj, nil); len(errs) > 0 {
		t.Errorf("defaulted policy invalid: %v", errs)
	}
}
