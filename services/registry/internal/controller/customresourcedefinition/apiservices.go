package customresourcedefinition

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// apiServicesKey is the queue key of the APIService sync, which no CRD
// name can be.
const apiServicesKey = ""

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// autoManaged labels the APIServices this controller owns, as kube's
// crdregistration controller labels its own.
const autoManaged = "kube-aggregator.kubernetes.io/automanaged"

// CRD group versions get kube's priorities: below every built-in group.
const (
	groupPriorityMinimum = 1000
	versionPriority      = 100
)

// syncAPIServices keeps one local APIService (no service: served by the
// registry itself) per group version an established CRD serves, as kube
// does. The aggregator watches APIServices, so a new group reaches its
// merged discovery at once instead of when its cache expires.
func (c *Controller) syncAPIServices(ctx context.Context) error {
	want := map[string]schema.GroupVersion{}
	for _, crd := range c.all() {
		if !isTrue(crd, apiextensionsv1.Established) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
				want[v.Name+"."+crd.Spec.Group] = gv
			}
		}
	}
	res := c.dyn.Resource(apiServiceGVR)
	have, err := res.List(ctx, metav1.ListOptions{LabelSelector: autoManaged + "=true"})
	if err != nil {
		return err
	}
	for _, svc := range have.Items {
		if _, ok := want[svc.GetName()]; ok {
			delete(want, svc.GetName())
			continue
		}
		if err := res.Delete(ctx, svc.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for name, gv := range want {
		svc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": name, "labels": map[string]any{autoManaged: "true"}},
			"spec": map[string]any{"group": gv.Group, "version": gv.Version,
				"groupPriorityMinimum": int64(groupPriorityMinimum), "versionPriority": int64(versionPriority)},
		}}
		if _, err := res.Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}
