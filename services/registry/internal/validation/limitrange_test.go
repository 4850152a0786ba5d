package validation

import "testing"

const validLimitRange = `
apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: default}
spec:
  limits:
  - type: Container
    max: {cpu: "2", memory: 1Gi}
    min: {cpu: 100m}
    default: {cpu: 500m}
    defaultRequest: {cpu: 200m}
    maxLimitRequestRatio: {cpu: "10"}
  - type: Pod
    max: {cpu: "4"}
  - type: PersistentVolumeClaim
    max: {storage: 10Gi}
`

func TestValidateLimitRange(t *testing.T) {
	base := object(t, validLimitRange)
	runValidation(t, ValidateLimitRange, []validationCase{
		{name: "valid", obj: base},
		{name: "type enum", obj: with(t, base, edit{"spec.limits[0].type", "Node"}),
			want: []string{"spec.limits[0].type: Invalid value"}},
		{name: "qualified custom type", obj: with(t, base, edit{"spec.limits[0].type", "example.com/Node"})},
		{name: "duplicate type", obj: with(t, base, edit{"spec.limits[1].type", "Container"}),
			want: []string{"spec.limits[1].type: Duplicate value"}},
		{name: "quantity parse", obj: with(t, base, edit{"spec.limits[0].max.cpu", "two"}),
			want: []string{"spec.limits[0].max[cpu]: Invalid value"}},
		{name: "min above max", obj: with(t, base, edit{"spec.limits[0].min.cpu", "3"}),
			want: []string{"spec.limits[0].min[cpu]: Invalid value", "spec.limits[0].defaultRequest[cpu]: Invalid value",
				"spec.limits[0].default[cpu]: Invalid value"}},
		{name: "default above max", obj: with(t, base, edit{"spec.limits[0].default.cpu", "3"}),
			want: []string{"spec.limits[0].default[cpu]: Invalid value"}},
		{name: "ratio below one", obj: with(t, base, edit{"spec.limits[0].maxLimitRequestRatio.cpu", "500m"}),
			want: []string{"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value"}},
		{name: "pod items have no defaults", obj: with(t, base, edit{"spec.limits[1].default", map[string]any{"cpu": "1"}}),
			want: []string{"spec.limits[1].default: Forbidden"}},
		{name: "container resource names", obj: with(t, base, edit{"spec.limits[0].max.pods", "3"}),
			want: []string{"spec.limits[0].max[pods]: Invalid value"}},
	})
}

func TestDefaultLimitRange(t *testing.T) {
	base := object(t, `
apiVersion: v1
kind: LimitRange
metadata: {name: limits}
spec:
  limits:
  - type: Container
    max: {cpu: "2", memory: 1Gi}
    min: {ephemeral-storage: 1Gi}
    default: {memory: 512Mi}
  - type: Pod
    max: {cpu: "4"}
`)
	runDefaults(t, DefaultLimitRange, []defaultCase{
		{name: "container item", obj: base, want: map[string]any{
			"spec.limits[0].default":        map[string]any{"cpu": "2", "memory": "512Mi"},
			"spec.limits[0].defaultRequest": map[string]any{"cpu": "2", "memory": "512Mi", "ephemeral-storage": "1Gi"},
			"spec.limits[1].default":        nil,
		}},
	})
}
