package apiresource

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func lists() []*metav1.APIResourceList {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "namespaces", Kind: "Namespace", Verbs: all},
			{Name: "namespaces/finalize", Kind: "Namespace", Verbs: []string{"update"}},
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: all},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "list"}},
		}},
	}
}

// Discovery yields top-level resources only, each resolvable by kind.
func TestDiscover(t *testing.T) {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: lists()}}
	s, err := Discover(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.All()); n != 3 {
		t.Fatalf("got %d resources, want 3 (subresource skipped): %v", n, s.All())
	}
	r, ok := s.ForKind(schema.GroupKind{Group: "apps", Kind: "Deployment"})
	if !ok || r.Resource != "deployments" || !r.Namespaced {
		t.Fatalf("ForKind(Deployment) = %+v, %v", r, ok)
	}
	if r.Can("delete") {
		t.Fatal("deployments must not claim delete")
	}
	ns := s.Filter(func(r Resource) bool { return r.Namespaced && r.Can("delete", "list") })
	if len(ns) != 1 || ns[0].Resource != "configmaps" {
		t.Fatalf("namespaced deletable = %v", ns)
	}
}
