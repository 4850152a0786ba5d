package validation

import "testing"

const validRole = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: default}
rules:
- {apiGroups: [""], resources: [pods, pods/log], verbs: [get, list, watch]}
`

func TestValidateRole(t *testing.T) {
	base := object(t, validRole)
	runValidation(t, ValidateRole, []validationCase{
		{name: "valid", obj: base},
		{name: "verbs required", obj: with(t, base, edit{"rules[0].verbs", []any{}}),
			want: []string{"rules[0].verbs: Required value"}},
		{name: "apiGroups required", obj: with(t, base, edit{"rules[0].apiGroups", removed}),
			want: []string{"rules[0].apiGroups: Required value"}},
		{name: "resources required", obj: with(t, base, edit{"rules[0].resources", removed}),
			want: []string{"rules[0].resources: Required value"}},
		{name: "no URLs in a namespace", obj: with(t, base, edit{"rules", []any{map[string]any{
			"nonResourceURLs": []any{"/healthz"}, "verbs": []any{"get"}}}}),
			want: []string{"rules[0].nonResourceURLs: Invalid value"}},
		{name: "no URLs with resources", obj: with(t, base, edit{"rules[0].nonResourceURLs", []any{"/healthz"}}),
			want: []string{"rules[0].nonResourceURLs: Invalid value", "rules[0].nonResourceURLs: Invalid value"}},
	})
}

func TestValidateClusterRole(t *testing.T) {
	base := object(t, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: monitor}
rules:
- {nonResourceURLs: [/metrics, /healthz/*], verbs: [get]}
- {apiGroups: ["*"], resources: ["*"], verbs: [list]}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {rbac.example.com/aggregate-to-monitor: "true"}}]
`)
	runValidation(t, ValidateClusterRole, []validationCase{
		{name: "valid", obj: base},
		{name: "URLs and resources exclusive", obj: with(t, base, edit{"rules[0].resources", []any{"pods"}}),
			want: []string{"rules[0].nonResourceURLs: Invalid value"}},
		{name: "aggregation needs selectors", obj: with(t, base, edit{"aggregationRule.clusterRoleSelectors", []any{}}),
			want: []string{"aggregationRule.clusterRoleSelectors: Required value"}},
		{name: "aggregation selector valid", obj: with(t, base, edit{"aggregationRule.clusterRoleSelectors", []any{
			map[string]any{"matchLabels": map[string]any{"bad key!": "x"}}}}),
			want: []string{"aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value"}},
	})
}
