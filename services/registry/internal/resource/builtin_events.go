package resource

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/core/event"
)

// events is events.k8s.io/v1: the core Events, kept as core/v1 Events in
// one storage and converted by kube's code on the way in and out.
func events() []*Info {
	return []*Info{
		kube(&Info{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Singular: "event", Namespaced: true,
			ShortNames: []string{"ev"},
			StoredAs:   &schema.GroupVersionResource{Version: "v1", Resource: "events"}},
			event.Strategy, nil),
	}
}
