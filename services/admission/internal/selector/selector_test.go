package selector

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

func namespace(name string, lbls map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
}

// namespaces has cached in its informer and live only in the API.
func namespaces(t *testing.T, cached, live []*corev1.Namespace) Namespaces {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	var objs []runtime.Object
	for _, ns := range cached {
		if err := idx.Add(ns); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, ns)
	}
	for _, ns := range live {
		objs = append(objs, ns)
	}
	return Namespaces{Lister: corev1listers.NewNamespaceLister(idx), Client: fake.NewClientset(objs...)}
}

func attrs(op admissionv1.Operation, resource, ns string, obj, old string) *admission.Attributes {
	return &admission.Attributes{Operation: op, Resource: metav1.GroupVersionResource{Version: "v1", Resource: resource},
		Namespace: ns, Object: runtime.RawExtension{Raw: []byte(obj)}, OldObject: runtime.RawExtension{Raw: []byte(old)}}
}

func TestMatch(t *testing.T) {
	prod := labels.SelectorFromSet(labels.Set{"env": "prod"})
	n := namespaces(t, []*corev1.Namespace{namespace("cached", map[string]string{"env": "prod"})},
		[]*corev1.Namespace{namespace("fresh", map[string]string{"env": "prod"}), namespace("dev", map[string]string{"env": "dev"})})
	prodJSON, devJSON := `{"metadata":{"labels":{"env":"prod"}}}`, `{"metadata":{"labels":{"env":"dev"}}}`
	for name, c := range map[string]struct {
		a    *admission.Attributes
		want bool
	}{
		"stored labels from the informer":     {attrs(admissionv1.Create, "configmaps", "cached", "{}", ""), true},
		"an uncached namespace read live":     {attrs(admissionv1.Create, "configmaps", "fresh", "{}", ""), true},
		"stored labels that do not match":     {attrs(admissionv1.Create, "configmaps", "dev", "{}", ""), false},
		"cluster-scoped is always selected":   {attrs(admissionv1.Create, "nodes", "", "{}", ""), true},
		"a namespace created with the labels": {attrs(admissionv1.Create, "namespaces", "new", prodJSON, ""), true},
		// kube judges an update of a namespace by its new labels alone.
		"a namespace updated away from them": {attrs(admissionv1.Update, "namespaces", "cached", devJSON, prodJSON), false},
		"a namespace deleted, stored labels": {attrs(admissionv1.Delete, "namespaces", "dev", "", devJSON), false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := n.Match(context.Background(), prod, c.a)
			if err != nil || got != c.want {
				t.Fatalf("Match = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	_, err := n.Match(context.Background(), prod, attrs(admissionv1.Create, "configmaps", "missing", "{}", ""))
	if !apierrors.IsNotFound(err) {
		t.Fatalf("a missing namespace: %v, want NotFound", err)
	}
}

func TestObject(t *testing.T) {
	prod := labels.SelectorFromSet(labels.Set{"env": "prod"})
	prodJSON, devJSON := `{"metadata":{"labels":{"env":"prod"}}}`, `{"metadata":{"labels":{"env":"dev"}}}`
	if !Object(prod, attrs(admissionv1.Update, "configmaps", "a", devJSON, prodJSON)) {
		t.Error("a label removed on update no longer selects the object")
	}
	if Object(prod, attrs(admissionv1.Create, "configmaps", "a", devJSON, "")) {
		t.Error("an object without the label is selected")
	}
	if !Object(labels.Everything(), attrs(admissionv1.Create, "configmaps", "a", "not json", "")) {
		t.Error("an empty selector does not select everything")
	}
}
