package handler

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Serves answers for the stores the handler holds now, subresources
// included, and nothing else: the request metrics name only those.
func TestServes(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		group, version, resource, subresource string
		want                                  bool
	}{
		{"", "v1", "pods", "", true},
		{"", "v1", "pods", "status", true},
		{"apps", "v1", "deployments", "scale", true},
		{"", "v1", "pods", "madeup", false},
		{"", "v2", "pods", "", false},
		{"madeup.example", "v1", "things", "", false},
	} {
		if got := e.h.Serves(c.group, c.version, c.resource, c.subresource); got != c.want {
			t.Errorf("Serves(%q, %q, %q, %q) = %v, want %v", c.group, c.version, c.resource, c.subresource, got, c.want)
		}
	}
	e.h.Remove(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"})
	if e.h.Serves("apps", "v1", "deployments", "") {
		t.Error("deployments served after their store was removed")
	}
}
