package validation

import "testing"

func TestValidateNamespace(t *testing.T) {
	base := object(t, `
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {kubernetes.io/metadata.name: apps}}
spec: {finalizers: [kubernetes, example.com/cleanup]}
status: {phase: Active}
`)
	runValidation(t, ValidateNamespace, []validationCase{
		{name: "valid", obj: base},
		{name: "unqualified finalizer", obj: with(t, base, edit{"spec.finalizers", []any{"cleanup"}}),
			want: []string{"spec.finalizers: Invalid value"}},
		{name: "name label must match", obj: with(t, base, edit{"metadata.labels", map[string]any{"kubernetes.io/metadata.name": "kube-system"}}),
			want: []string{"metadata.labels[kubernetes.io/metadata.name]: Invalid value"}},
		{name: "update", obj: with(t, base, edit{"metadata.labels.team", "a"}), old: base},
	})
}

func TestDefaultNamespace(t *testing.T) {
	bare := object(t, `{apiVersion: v1, kind: Namespace, metadata: {name: apps}}`)
	runDefaults(t, DefaultNamespace, []defaultCase{
		{name: "bare", obj: bare, want: map[string]any{
			"spec.finalizers": []any{"kubernetes"},
			"status.phase":    "Active",
			"metadata.labels": map[string]any{"kubernetes.io/metadata.name": "apps"},
		}},
		{name: "user values kept", obj: with(t, bare, edit{"spec", map[string]any{"finalizers": []any{}}},
			edit{"status", map[string]any{"phase": "Terminating"}}, edit{"metadata.labels", map[string]any{"team": "a"}}),
			want: map[string]any{
				"spec.finalizers": []any{},
				"status.phase":    "Terminating",
				"metadata.labels": map[string]any{"team": "a", "kubernetes.io/metadata.name": "apps"},
			}},
		{name: "no label before the name is generated", obj: with(t, bare, edit{"metadata.name", removed}),
			want: map[string]any{"metadata.labels": nil}},
	})
}
