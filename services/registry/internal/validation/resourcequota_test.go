package validation

import "testing"

func TestValidateResourceQuota(t *testing.T) {
	base := object(t, `
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota, namespace: default}
spec:
  hard: {pods: "10", requests.cpu: "4", limits.memory: 8Gi, count/deployments.apps: "5", requests.hugepages-2Mi: 1Gi}
  scopes: [NotTerminating]
status:
  hard: {pods: "10"}
  used: {pods: "3"}
`)
	runValidation(t, ValidateResourceQuota, []validationCase{
		{name: "valid", obj: base},
		{name: "unknown resource", obj: with(t, base, edit{"spec.hard", map[string]any{"widgets": "3"}}),
			want: []string{"spec.hard[widgets]: Invalid value"}},
		{name: "quantity parse", obj: with(t, base, edit{"spec.hard", map[string]any{"pods": "ten"}}),
			want: []string{"spec.hard[pods]: Invalid value"}},
		{name: "negative", obj: with(t, base, edit{"spec.hard", map[string]any{"requests.cpu": "-1"}}),
			want: []string{"spec.hard[requests.cpu]: Invalid value"}},
		{name: "object counts are whole", obj: with(t, base, edit{"spec.hard", map[string]any{"pods": "1500m"}}),
			want: []string{"spec.hard[pods]: Invalid value"}},
		{name: "status checked too", obj: with(t, base, edit{"status.used", map[string]any{"pods": "-3"}}),
			want: []string{"status.used[pods]: Invalid value"}},
		{name: "unknown scope", obj: with(t, base, edit{"spec.scopes", []any{"Expensive"}}),
			want: []string{"spec.scopes: Invalid value"}},
		{name: "conflicting scopes", obj: with(t, base, edit{"spec.scopes", []any{"BestEffort", "NotBestEffort"}}),
			want: []string{"spec.scopes: Invalid value"}},
	})
}
