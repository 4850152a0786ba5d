package garbagecollector

import (
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

var secretGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// These tests run the whole collector (informers, graph, queues) against
// client-go's fakes. The fakes delete at once, whatever the propagation
// policy; reactors add the registry rules the collector relies on
// (registryRules). They check the collector's requests, not the registry's
// deletion semantics; the integration tests do that.

type env struct {
	t   *testing.T
	dyn *dynamicfake.FakeDynamicClient
	c   *Controller
}

func start(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	verbs := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{{
		GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: verbs},
			{Name: "secrets", Kind: "Secret", Namespaced: true, Verbs: verbs},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: verbs},
		}}}}}
	for _, o := range objs {
		if m, ok := o.(metav1.Object); ok && m.GetResourceVersion() == "" {
			m.SetResourceVersion("1")
		}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		cmGVR: "ConfigMapList", secretGVR: "SecretList", {Version: "v1", Resource: "events"}: "EventList",
	}, objs...)
	registryRules(dyn)
	c, err := New(Options{Dynamic: dyn, Discovery: disc, Log: controllertest.Log()})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)
	e := &env{t: t, dyn: dyn, c: c}
	e.eventually("informers synced", func() bool { return c.monitors.count() == 2 && c.monitors.synced() })
	return e
}

// registryRules adds to the fake what the registry does and the collector
// relies on: an update must carry the resourceVersion it read and gets a
// new one; a delete honours its uid and resourceVersion preconditions; an
// object being deleted goes once its last finalizer is removed. The fake
// client runs reactors one action at a time, so each check and write is
// atomic, as in etcd.
func registryRules(dyn *dynamicfake.FakeDynamicClient) {
	var version int
	current := func(a clienttesting.Action, name string) (*unstructured.Unstructured, error) {
		obj, err := dyn.Tracker().Get(a.GetResource(), a.GetNamespace(), name)
		if err != nil {
			return nil, err
		}
		return obj.(*unstructured.Unstructured), nil
	}
	conflict := func(a clienttesting.Action, name string) error {
		return apierrors.NewConflict(a.GetResource().GroupResource(), name, errors.New("precondition failed"))
	}
	dyn.PrependReactor("update", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.UpdateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		cur, err := current(a, obj.GetName())
		if err != nil {
			return true, nil, err
		}
		if obj.GetResourceVersion() != cur.GetResourceVersion() {
			return true, nil, conflict(a, obj.GetName())
		}
		version++
		obj.SetResourceVersion(fmt.Sprint(100 + version))
		if obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0 {
			return true, obj, dyn.Tracker().Delete(a.GetResource(), a.GetNamespace(), obj.GetName())
		}
		return true, obj, dyn.Tracker().Update(a.GetResource(), obj, a.GetNamespace())
	})
	dyn.PrependReactor("delete", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteActionImpl)
		pre := d.DeleteOptions.Preconditions
		if pre == nil {
			return false, nil, nil
		}
		cur, err := current(a, d.Name)
		if err != nil {
			return true, nil, err
		}
		if (pre.UID != nil && *pre.UID != cur.GetUID()) || (pre.ResourceVersion != nil && *pre.ResourceVersion != cur.GetResourceVersion()) {
			return true, nil, conflict(a, d.Name)
		}
		return false, nil, nil
	})
}

func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	polltest.Until(e.t, 10*time.Second, what, cond)
}

func (e *env) get(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	obj, err := e.dyn.Resource(gvr).Namespace("ns").Get(e.t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return obj
}

func (e *env) gone(gvr schema.GroupVersionResource, name string) func() bool {
	return func() bool { return e.get(gvr, name) == nil }
}

// deleteAction finds the collector's delete of name.
func (e *env) deleteAction(name string) (clienttesting.DeleteActionImpl, bool) {
	for _, a := range e.dyn.Actions() {
		if d, ok := a.(clienttesting.DeleteActionImpl); ok && d.Name == name {
			return d, true
		}
	}
	return clienttesting.DeleteActionImpl{}, false
}

func secret(uid string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
	u := cm("ns", uid, owners...)
	u.SetKind("Secret")
	return u
}

func ownerRef(kind, name, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: kind, Name: name, UID: types.UID(uid)}
}

// Background: an object whose owners are all gone is deleted, guarded by
// its uid; one whose owner exists stays until that owner is deleted.
func TestCollectsWhenOwnersGone(t *testing.T) {
	e := start(t,
		cm("ns", "own"),
		secret("kept", ownerRef("ConfigMap", "own", "own")),
		secret("stray", ownerRef("ConfigMap", "ghost", "ghost")),
	)
	e.eventually("stray collected", e.gone(secretGVR, "stray"))
	d, _ := e.deleteAction("stray")
	if d.DeleteOptions.PropagationPolicy == nil || *d.DeleteOptions.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("stray deleted with policy %v, want Background", d.DeleteOptions.PropagationPolicy)
	}
	if p := d.DeleteOptions.Preconditions; p == nil || p.UID == nil || *p.UID != "stray" {
		t.Errorf("delete not guarded by uid: %+v", p)
	}
	if e.get(secretGVR, "kept") == nil {
		t.Fatal("dependent of a live owner was deleted")
	}
	if err := e.dyn.Resource(cmGVR).Namespace("ns").Delete(t.Context(), "own", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("kept collected after its owner", e.gone(secretGVR, "kept"))
}

// An owner reference whose name now belongs to another uid is gone.
func TestOwnerNameReused(t *testing.T) {
	reborn := cm("ns", "new-uid")
	reborn.SetName("own")
	e := start(t, reborn, secret("dep", ownerRef("ConfigMap", "own", "old-uid")))
	e.eventually("dependent of the old owner collected", e.gone(secretGVR, "dep"))
}

// With one owner present and one gone, only the dangling reference goes.
func TestDropsDanglingReference(t *testing.T) {
	e := start(t, cm("ns", "own"),
		secret("dep", ownerRef("ConfigMap", "own", "own"), ownerRef("ConfigMap", "ghost", "ghost")))
	e.eventually("dangling reference removed", func() bool {
		dep := e.get(secretGVR, "dep")
		return dep != nil && len(dep.GetOwnerReferences()) == 1 && dep.GetOwnerReferences()[0].UID == "own"
	})
}

// Orphan: the dependents lose their reference to the owner and survive;
// the owner loses its "orphan" finalizer.
func TestOrphansDependents(t *testing.T) {
	e := start(t,
		deleting(cm("ns", "own"), metav1.FinalizerOrphanDependents),
		secret("a", ownerRef("ConfigMap", "own", "own")),
		secret("b", ownerRef("ConfigMap", "own", "own"), ownerRef("ConfigMap", "other", "other")),
		cm("ns", "other"),
	)
	e.eventually("owner deleted once its finalizer was removed", e.gone(cmGVR, "own"))
	a, b := e.get(secretGVR, "a"), e.get(secretGVR, "b")
	if a == nil || b == nil {
		t.Fatal("orphaned dependents were deleted")
	}
	if len(a.GetOwnerReferences()) != 0 {
		t.Errorf("a still has owners %v", a.GetOwnerReferences())
	}
	if refs := b.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != "other" {
		t.Errorf("b owners = %v, want only other", refs)
	}
}

// A decision made on a reading that is stale by the time of the delete is
// carried out only if the object's owners are what was read. Otherwise the
// object was orphaned or adopted meanwhile and is examined again: deleting
// it would undo an orphaning that raced with the collector.
func TestStaleReadingNotDeleted(t *testing.T) {
	e := start(t, secret("dep"))
	ref := objectRef{Namespace: "ns", Name: "dep", UID: "dep"}
	seen := e.get(secretGVR, "dep")
	seen.SetResourceVersion("0")
	seen.SetOwnerReferences([]metav1.OwnerReference{ownerRef("ConfigMap", "gone", "gone")})
	err := e.c.deleteLive(t.Context(), secretGVR, ref, seen, metav1.DeletePropagationBackground)
	if !errors.Is(err, worker.ErrPending) {
		t.Errorf("delete on a reading whose owners changed: err = %v, want it retried", err)
	}
	if e.get(secretGVR, "dep") == nil {
		t.Fatal("object deleted on a reading whose owners had changed")
	}
	seen.SetOwnerReferences(nil) // only the version differs now
	if err := e.c.deleteLive(t.Context(), secretGVR, ref, seen, metav1.DeletePropagationBackground); err != nil {
		t.Fatal(err)
	}
	if e.get(secretGVR, "dep") != nil {
		t.Fatal("object not deleted although only its version had changed")
	}
}

// Foreground: dependents are deleted (one with dependents of its own in the
// foreground too), and once no blocking dependent remains the owner loses
// its "foregroundDeletion" finalizer. As in kube, a dependent without
// blockOwnerDeletion does not hold the owner up; it is collected either
// way.
func TestForegroundDeletion(t *testing.T) {
	e := start(t,
		deleting(cm("ns", "own"), metav1.FinalizerDeleteDependents),
		secret("mid", blocking(ownerRef("ConfigMap", "own", "own"))),
		cm("ns", "leaf", blocking(ownerRef("Secret", "mid", "mid"))),
		secret("loose", ownerRef("ConfigMap", "own", "own")),
	)
	e.eventually("owner deleted once its finalizer was removed", e.gone(cmGVR, "own"))
	for _, n := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{secretGVR, "mid"}, {secretGVR, "loose"}, {cmGVR, "leaf"}} {
		e.eventually(n.name+" deleted", e.gone(n.gvr, n.name))
	}
	d, _ := e.deleteAction("mid")
	if d.DeleteOptions.PropagationPolicy == nil || *d.DeleteOptions.PropagationPolicy != metav1.DeletePropagationForeground {
		t.Errorf("mid (which has dependents) deleted with %v, want Foreground", d.DeleteOptions.PropagationPolicy)
	}
}

// A cluster-scoped object naming a namespaced owner is never collected.
func TestInvalidOwnerScopeLeftAlone(t *testing.T) {
	e := start(t)
	obj := &unstructured.Unstructured{}
	obj.SetOwnerReferences([]metav1.OwnerReference{ownerRef("ConfigMap", "x", "x")})
	state, err := e.c.ownerState(t.Context(), obj.GetOwnerReferences()[0], "")
	if err == nil || state != solid {
		t.Fatalf("ownerState = %v, %v; want solid and an error", state, err)
	}
}

// Rediscovery starts informers for new resources and, for resources no
// longer served, stops them and forgets their objects, so their dependents
// are re-examined.
func TestRediscovery(t *testing.T) {
	e := start(t, cm("ns", "own"), secret("dep", ownerRef("ConfigMap", "own", "own")))
	disc := e.c.discovery.(*fakediscovery.FakeDiscovery)
	disc.Lock()
	all := disc.Resources[0].APIResources
	disc.Resources[0].APIResources = []metav1.APIResource{all[1]} // secrets only
	disc.Unlock()
	if err := e.c.rediscover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := e.c.monitors.count(); n != 1 {
		t.Fatalf("%d resources watched after configmaps went away, want 1", n)
	}
	if v, ok := e.c.graph.view("own"); ok && v.observed {
		t.Fatal("object of an unserved resource still in the graph")
	}
	// The dependent is re-examined and fails: its owner's kind is no
	// longer served, which is never read as "owner gone".
	e.eventually("dependent re-examined", func() bool { return e.c.deleteQ.Retries("dep") > 0 })
	if e.get(secretGVR, "dep") == nil {
		t.Fatal("dependent of an owner of an unserved kind was collected")
	}

	disc.Lock()
	disc.Resources[0].APIResources = all
	disc.Unlock()
	if err := e.c.rediscover(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.eventually("configmaps watched again", func() bool {
		v, ok := e.c.graph.view("own")
		return e.c.monitors.count() == 2 && ok && v.observed
	})
}
