package namespace

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

var (
	configmaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	allVerbs    = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
)

// discoveryDocs serves configmaps with deletecollection and deployments
// without it, so both ways of deleting are exercised.
func discoveryDocs() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "namespaces", Kind: "Namespace", Verbs: allVerbs},
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: allVerbs},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"delete", "get", "list"}},
		}},
	}
}

func obj(gvr schema.GroupVersionResource, kind, ns, name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	return u
}

func terminating(name string) *corev1.Namespace {
	now := metav1.Now()
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "ns-uid", DeletionTimestamp: &now},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}
}

type fixture struct {
	c    *Controller
	kube *fake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
}

// newFixture wires a controller to fakes. The dynamic fake does not
// implement deletecollection, so a reactor does what the registry does:
// objects with finalizers get a deletionTimestamp, the rest go.
func newFixture(t *testing.T, ns *corev1.Namespace, objs ...runtime.Object) *fixture {
	t.Helper()
	kube := fake.NewClientset(ns)
	kube.Resources = discoveryDocs()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		configmaps: "ConfigMapList", deployments: "DeploymentList",
	}, objs...)
	dyn.PrependReactor("delete-collection", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		gvr, ns := a.GetResource(), a.GetNamespace()
		list, err := dyn.Tracker().List(gvr, gvr.GroupVersion().WithKind(kindOf(gvr)), ns)
		if err != nil {
			return true, nil, err
		}
		items, _ := list.(*unstructured.UnstructuredList)
		for _, item := range items.Items {
			if len(item.GetFinalizers()) > 0 {
				now := metav1.Now()
				item.SetDeletionTimestamp(&now)
				err = dyn.Tracker().Update(gvr, &item, ns)
			} else {
				err = dyn.Tracker().Delete(gvr, ns, item.GetName())
			}
			if err != nil {
				return true, nil, err
			}
		}
		return true, nil, nil
	})
	c, err := New(Options{Client: kube, Dynamic: dyn, Log: controllertest.Log()})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: c, kube: kube, dyn: dyn}
}

func kindOf(gvr schema.GroupVersionResource) string {
	return map[string]string{"configmaps": "ConfigMap", "deployments": "Deployment"}[gvr.Resource]
}

func (f *fixture) count(t *testing.T, gvr schema.GroupVersionResource, ns string) int {
	t.Helper()
	list, err := f.dyn.Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

func (f *fixture) finalizeCalls() []*corev1.Namespace {
	var out []*corev1.Namespace
	for _, a := range f.kube.Actions() {
		if a.GetSubresource() == "finalize" {
			out = append(out, a.(clienttesting.CreateAction).GetObject().(*corev1.Namespace))
		}
	}
	return out
}

func condition(ns *corev1.Namespace, t corev1.NamespaceConditionType) corev1.NamespaceCondition {
	for _, c := range ns.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.NamespaceCondition{}
}

// Everything in the namespace goes, by deletecollection or one by one,
// nothing elsewhere is touched, and the "kubernetes" finalizer is removed
// through the finalize subresource.
func TestEmptiesAndFinalizes(t *testing.T) {
	f := newFixture(t, terminating("doomed"),
		obj(configmaps, "ConfigMap", "doomed", "a"), obj(configmaps, "ConfigMap", "doomed", "b"),
		obj(deployments, "Deployment", "doomed", "web"),
		obj(configmaps, "ConfigMap", "other", "keep"))
	if err := f.c.sync(t.Context(), "doomed"); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, configmaps, "doomed"); n != 0 {
		t.Errorf("%d configmaps left", n)
	}
	if n := f.count(t, deployments, "doomed"); n != 0 {
		t.Errorf("%d deployments left", n)
	}
	if n := f.count(t, configmaps, "other"); n != 1 {
		t.Errorf("other namespace touched: %d configmaps", n)
	}
	calls := f.finalizeCalls()
	if len(calls) != 1 {
		t.Fatalf("finalize called %d times, want 1", len(calls))
	}
	if len(calls[0].Spec.Finalizers) != 0 {
		t.Errorf("finalize sent finalizers %v", calls[0].Spec.Finalizers)
	}
	if c := condition(calls[0], corev1.NamespaceContentRemaining); c.Status != corev1.ConditionFalse {
		t.Errorf("ContentRemaining = %+v, want False", c)
	}
}

// Objects held by finalizers keep the namespace from being finalized; the
// sync asks to be retried, and the conditions say what remains.
func TestWaitsForFinalizers(t *testing.T) {
	f := newFixture(t, terminating("doomed"),
		obj(configmaps, "ConfigMap", "doomed", "held", "example.com/hold"),
		obj(configmaps, "ConfigMap", "doomed", "free"))
	err := f.c.sync(t.Context(), "doomed")
	if !errors.Is(err, worker.ErrPending) {
		t.Fatalf("sync = %v, want ErrPending", err)
	}
	if calls := f.finalizeCalls(); len(calls) != 0 {
		t.Fatal("finalized with content remaining")
	}
	ns, err := f.kube.CoreV1().Namespaces().Get(t.Context(), "doomed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := condition(ns, corev1.NamespaceContentRemaining); c.Status != corev1.ConditionTrue || c.Message == "" {
		t.Errorf("ContentRemaining = %+v", c)
	}
	if c := condition(ns, corev1.NamespaceFinalizersRemaining); c.Status != corev1.ConditionTrue {
		t.Errorf("FinalizersRemaining = %+v", c)
	}

	// Once the held object is gone, the next pass finalizes.
	if err := f.dyn.Tracker().Delete(configmaps, "doomed", "held"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.sync(t.Context(), "doomed"); err != nil {
		t.Fatal(err)
	}
	if len(f.finalizeCalls()) != 1 {
		t.Fatal("not finalized once content was gone")
	}
}

// A namespace that is not being deleted is left alone.
func TestIgnoresLiveNamespace(t *testing.T) {
	ns := terminating("alive")
	ns.DeletionTimestamp = nil
	f := newFixture(t, ns, obj(configmaps, "ConfigMap", "alive", "a"))
	if err := f.c.sync(t.Context(), "alive"); err != nil {
		t.Fatal(err)
	}
	if f.count(t, configmaps, "alive") != 1 || len(f.dyn.Actions()) != 1 {
		t.Fatalf("live namespace touched: %v", f.dyn.Actions())
	}
}

// A namespace without the "kubernetes" finalizer is someone else's to
// finalize: its content is not deleted here.
func TestIgnoresOtherFinalizers(t *testing.T) {
	ns := terminating("other")
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/custom"}
	f := newFixture(t, ns, obj(configmaps, "ConfigMap", "other", "a"))
	if err := f.c.sync(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	if f.count(t, configmaps, "other") != 1 || len(f.finalizeCalls()) != 0 {
		t.Fatal("namespace with a foreign finalizer was processed")
	}
}

// When some groups cannot be discovered, content may hide there, so the
// namespace is not finalized.
func TestDiscoveryFailureBlocksFinalize(t *testing.T) {
	f := newFixture(t, terminating("doomed"))
	f.kube.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("discovery down")
	})
	if err := f.c.sync(t.Context(), "doomed"); err == nil || errors.Is(err, worker.ErrPending) {
		t.Fatalf("sync = %v, want a failure", err)
	}
	if len(f.finalizeCalls()) != 0 {
		t.Fatal("finalized without knowing the content")
	}
}

// A condition whose status is unchanged keeps its transition time, and an
// unchanged set is reported as such so no write is made.
func TestMergeConditions(t *testing.T) {
	t0 := metav1.Unix(100, 0)
	t1 := metav1.Unix(200, 0)
	want := wantConditions(content{remaining: map[string]int{"pods": 1}})
	first, changed := mergeConditions(nil, want, t0)
	if !changed || len(first) != 5 {
		t.Fatalf("first merge: changed=%v, %d conditions", changed, len(first))
	}
	again, changed := mergeConditions(first, want, t1)
	if changed {
		t.Fatal("identical conditions reported as changed")
	}
	if again[0].LastTransitionTime != t0 {
		t.Fatal("transition time moved without a transition")
	}
	done, changed := mergeConditions(first, wantConditions(content{}), t1)
	if !changed {
		t.Fatal("change not reported")
	}
	for _, c := range done {
		if c.Type == corev1.NamespaceContentRemaining && (c.Status != corev1.ConditionFalse || c.LastTransitionTime != t1) {
			t.Fatalf("ContentRemaining after clearing = %+v", c)
		}
	}
}
