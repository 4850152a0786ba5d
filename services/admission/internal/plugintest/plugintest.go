// Package plugintest helps test admission plugins: Deps whose informers
// are fed by client-go's fake clientset (a data source only: the plugin
// under test is real), and Attributes built from typed objects.
package plugintest

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Deps are plugin dependencies over a fake clientset holding objs. Call
// Start after constructing the plugin.
func Deps(t testing.TB, objs ...runtime.Object) (plugin.Deps, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	return plugin.Deps{Client: client, Informers: informers.NewSharedInformerFactory(client, 0)}, client
}

// Start runs deps' informers until the test ends and waits for them to
// sync.
func Start(t testing.TB, deps plugin.Deps) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); deps.Informers.Shutdown() })
	deps.Informers.Start(ctx.Done())
	for typ, ok := range deps.Informers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
}

// Attrs is a request about obj (the new object; nil on DELETE) and old
// (the stored one; nil on CREATE).
func Attrs(t testing.TB, op admissionv1.Operation, group, version, kind, resource, namespace, name string, obj, old any) *admission.Attributes {
	t.Helper()
	return &admission.Attributes{
		Operation: op,
		Kind:      metav1.GroupVersionKind{Group: group, Version: version, Kind: kind},
		Resource:  metav1.GroupVersionResource{Group: group, Version: version, Resource: resource},
		Namespace: namespace, Name: name,
		Object: raw(t, obj), OldObject: raw(t, old),
	}
}

func raw(t testing.TB, obj any) runtime.RawExtension {
	if obj == nil {
		return runtime.RawExtension{}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: b}
}

// Admit runs a and fails the test on an error.
func Admit(t testing.TB, a admission.Admitter, attrs *admission.Attributes) *admission.Result {
	t.Helper()
	res, err := a.Admit(context.Background(), attrs)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	return res
}

// Patched is attrs' object with res's patch applied.
func Patched(t testing.TB, attrs *admission.Attributes, res *admission.Result, into any) {
	t.Helper()
	out, err := admission.ApplyPatch(attrs.Object.Raw, res.Patch)
	if err != nil {
		t.Fatalf("ApplyPatch: %v", err)
	}
	if err := json.Unmarshal(out, into); err != nil {
		t.Fatal(err)
	}
}

// Phases builds a two-phase plugin with informed in its informers and, when
// given, live as the API it asks directly (else the same fake), and starts
// its informers. It returns the halves and the client the plugin asks.
func Phases(t testing.TB, build plugin.PhasesConstructor, informed []runtime.Object, live ...runtime.Object) (m, v admission.Admitter, client *fake.Clientset) {
	t.Helper()
	deps, client := Deps(t, informed...)
	if live != nil {
		client = fake.NewClientset(live...)
		deps.Client = client
	}
	m, v, err := build(deps)
	if err != nil {
		t.Fatal(err)
	}
	Start(t, deps)
	return m, v, client
}

// CreatePod is the Attributes of creating p in its namespace.
func CreatePod(t testing.TB, p *corev1.Pod) *admission.Attributes {
	return Attrs(t, admissionv1.Create, "", "v1", "Pod", "pods", p.Namespace, p.Name, p, nil)
}
