package validation

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPodQOSClass(t *testing.T) {
	pod := func(resources map[string]any) *unstructured.Unstructured {
		return with(t, object(t, validPod), edit{"spec.containers", []any{
			map[string]any{"name": "a", "image": "a", "resources": resources}}})
	}
	for _, tc := range []struct {
		name      string
		resources map[string]any
		want      string
	}{
		{"best effort", map[string]any{}, "BestEffort"},
		{"guaranteed", map[string]any{"limits": map[string]any{"cpu": "1", "memory": "1Gi"},
			"requests": map[string]any{"cpu": "1", "memory": "1Gi"}}, "Guaranteed"},
		{"burstable", map[string]any{"requests": map[string]any{"cpu": "1"}}, "Burstable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := podQOSClass(pod(tc.resources))
			if !ok || string(got) != tc.want {
				t.Errorf("qos = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
