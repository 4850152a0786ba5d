package garbagecollector

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// cm builds a ConfigMap named by its uid, in namespace ns.
func cm(ns, uid string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace(ns)
	u.SetName(uid)
	u.SetUID(types.UID(uid))
	u.SetOwnerReferences(owners)
	return u
}

func deleting(u *unstructured.Unstructured, finalizers ...string) *unstructured.Unstructured {
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	u.SetFinalizers(finalizers)
	return u
}

func blocking(ref metav1.OwnerReference) metav1.OwnerReference {
	ref.BlockOwnerDeletion = new(true)
	return ref
}

func has(uids []types.UID, uid string) bool { return slices.Contains(uids, types.UID(uid)) }

// A dependent seen before its owner is checked; once the owner is seen it
// is left alone; when the owner goes it is checked again.
func TestGraphOwnerLifecycle(t *testing.T) {
	g := newGraph()
	if w := g.upsert(cmGVR, cm("ns", "dep", owner("own"))); !has(w.attemptToDelete, "dep") {
		t.Fatalf("dependent of an unseen owner not checked: %+v", w)
	}
	if w := g.upsert(cmGVR, cm("ns", "own")); len(w.attemptToDelete) != 0 {
		t.Fatalf("owner arrival queued work: %+v", w)
	}
	if w := g.upsert(cmGVR, cm("ns", "dep2", owner("own"))); len(w.attemptToDelete) != 0 {
		t.Fatalf("dependent of a present owner queued: %+v", w)
	}
	w := g.remove("own")
	if !has(w.attemptToDelete, "dep") || !has(w.attemptToDelete, "dep2") {
		t.Fatalf("owner removal did not queue dependents: %+v", w)
	}
	// Both dependents gone: nothing, not even a placeholder, remains.
	g.remove("dep")
	g.remove("dep2")
	if len(g.nodes) != 0 {
		t.Fatalf("graph leaks nodes: %v", g.nodes)
	}
}

// An owner in another namespace does not count as present.
func TestGraphCrossNamespaceOwner(t *testing.T) {
	g := newGraph()
	g.upsert(cmGVR, cm("a", "own"))
	if w := g.upsert(cmGVR, cm("b", "dep", owner("own"))); !has(w.attemptToDelete, "dep") {
		t.Fatal("dependent of an owner in another namespace not checked")
	}
}

// A foreground deletion queues the owner and its dependents; a blocking
// dependent leaving, or ceasing to block, queues the owner again.
func TestGraphForeground(t *testing.T) {
	g := newGraph()
	g.upsert(cmGVR, cm("ns", "own"))
	g.upsert(cmGVR, cm("ns", "a", blocking(owner("own"))))
	g.upsert(cmGVR, cm("ns", "b", blocking(owner("own"))))
	w := g.upsert(cmGVR, deleting(cm("ns", "own"), metav1.FinalizerDeleteDependents))
	for _, uid := range []string{"own", "a", "b"} {
		if !has(w.attemptToDelete, uid) {
			t.Fatalf("%s not queued on foreground deletion: %+v", uid, w)
		}
	}
	v, _ := g.view("own")
	if n := len(v.blockingDependents()); n != 2 {
		t.Fatalf("%d blocking dependents, want 2", n)
	}
	if w := g.remove("a"); !has(w.attemptToDelete, "own") {
		t.Fatal("owner not queued when a dependent left")
	}
	if w := g.upsert(cmGVR, cm("ns", "b", owner("own"))); !has(w.attemptToDelete, "own") {
		t.Fatal("owner not queued when a dependent stopped blocking")
	}
	v, _ = g.view("own")
	if n := len(v.blockingDependents()); n != 0 {
		t.Fatalf("%d blocking dependents, want 0", n)
	}
}

// An owner deleted with the orphan policy is queued for orphaning.
func TestGraphOrphan(t *testing.T) {
	g := newGraph()
	g.upsert(cmGVR, cm("ns", "dep", owner("own")))
	w := g.upsert(cmGVR, deleting(cm("ns", "own"), metav1.FinalizerOrphanDependents))
	if !has(w.attemptToOrphan, "own") {
		t.Fatalf("orphan deletion not queued: %+v", w)
	}
	v, _ := g.view("own")
	if len(v.dependents) != 1 || v.dependents[0].ref.Name != "dep" {
		t.Fatalf("dependents = %+v", v.dependents)
	}
}

// Forgetting a resource forgets its objects and queues their dependents,
// so a stale node cannot vouch for an owner.
func TestGraphRemoveResource(t *testing.T) {
	g := newGraph()
	other := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	g.upsert(other, cm("ns", "own"))
	g.upsert(cmGVR, cm("ns", "dep", owner("own")))
	w := g.removeResource(other)
	if !has(w.attemptToDelete, "dep") {
		t.Fatalf("dependent not queued: %+v", w)
	}
	if v, _ := g.view("own"); v.observed {
		t.Fatal("node of a removed resource still observed")
	}
}
