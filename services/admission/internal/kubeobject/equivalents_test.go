package kubeobject

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// fakeResources is discovery's resource lists, or its error.
type fakeResources struct {
	discovery.ServerResourcesInterface
	lists []*metav1.APIResourceList
	err   error
	calls int
}

func (f *fakeResources) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	f.calls++
	return nil, f.lists, f.err
}

// What kube-apiserver's discovery says of HorizontalPodAutoscalers (two
// versions, one storage, a scale subresource of another kind), Events
// (two groups, one storage) and a custom resource.
var discovered = []*metav1.APIResourceList{
	{GroupVersion: "autoscaling/v1", APIResources: []metav1.APIResource{
		{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", StorageVersionHash: "hpa"},
		{Name: "horizontalpodautoscalers/status", Kind: "HorizontalPodAutoscaler"},
	}},
	{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{
		{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", StorageVersionHash: "hpa"},
		{Name: "horizontalpodautoscalers/status", Kind: "HorizontalPodAutoscaler"},
	}},
	{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Kind: "Deployment", StorageVersionHash: "deploy"},
		{Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale"},
	}},
	{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "events", Kind: "Event", StorageVersionHash: "ev"}}},
	{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "events", Kind: "Event", StorageVersionHash: "ev"}}},
	{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "gadgets", Kind: "Gadget", StorageVersionHash: "g"}}},
	{GroupVersion: "example.com/v2", APIResources: []metav1.APIResource{{Name: "gadgets", Kind: "Gadget", StorageVersionHash: "g"}}},
}

func TestEquivalents(t *testing.T) {
	e := &Equivalents{discovery: &fakeResources{lists: discovered}}
	hpa := func(v string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "autoscaling", Version: v, Resource: "horizontalpodautoscalers"}
	}
	sameSet := func(got []schema.GroupVersionResource, want ...schema.GroupVersionResource) bool {
		return len(got) == len(want) && !slices.ContainsFunc(want, func(w schema.GroupVersionResource) bool { return !slices.Contains(got, w) })
	}
	if got := e.EquivalentResourcesFor(hpa("v1"), ""); !sameSet(got, hpa("v1"), hpa("v2")) {
		t.Errorf("HPA v1's equivalents %v", got)
	}
	if got := e.EquivalentResourcesFor(hpa("v2"), "status"); !sameSet(got, hpa("v1"), hpa("v2")) {
		t.Errorf("HPA v2 status's equivalents %v", got)
	}
	if got := e.KindFor(hpa("v2"), ""); got != (schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}) {
		t.Errorf("HPA v2's kind %v", got)
	}
	deploy := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if got := e.KindFor(deploy, "scale"); got != (schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}) {
		t.Errorf("deployments/scale's kind %v", got)
	}
	core := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	events := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	if got := e.EquivalentResourcesFor(events, ""); !sameSet(got, core, events) {
		t.Errorf("events.k8s.io Events' equivalents %v", got)
	}
	gadgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	if got := e.EquivalentResourcesFor(gadgets, ""); len(got) != 0 {
		t.Errorf("a custom resource, which kube's scheme cannot convert, has equivalents %v", got)
	}
}

// Discovery that cannot be read leaves every resource its own only, and
// is read again a second later, not on every request.
func TestEquivalentsRetry(t *testing.T) {
	f := &fakeResources{err: errors.New("down")}
	e := &Equivalents{discovery: f}
	hpa := schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	for range 3 {
		if got := e.EquivalentResourcesFor(hpa, ""); len(got) != 0 {
			t.Fatalf("equivalents without discovery: %v", got)
		}
	}
	if f.calls != 1 {
		t.Errorf("discovery read %d times within a second", f.calls)
	}
	f.err, f.lists = nil, discovered
	e.failedAt = e.failedAt.Add(-retryEvery)
	if got := e.EquivalentResourcesFor(hpa, ""); len(got) != 2 {
		t.Errorf("after discovery answered: %v", got)
	}
}
