package garbagecollector

import (
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// objectRef identifies an object for logs and live reads.
type objectRef struct {
	APIVersion, Kind, Namespace, Name string
	UID                               types.UID
}

// node is one object in the ownership graph, keyed by uid. A node that has
// dependents but has not been observed itself (its owner reference names an
// object no informer has shown, or one that was deleted) is a placeholder:
// it exists only to remember who depends on that uid.
type node struct {
	ref        objectRef
	resource   schema.GroupVersionResource // zero for placeholders
	observed   bool
	owners     []metav1.OwnerReference
	dependents map[types.UID]struct{}
	// foreground: being deleted, waiting for its dependents to go first.
	foreground bool
	// orphan: being deleted, waiting for its dependents to be let go.
	orphan bool
	// deleting: has a deletionTimestamp.
	deleting bool
}

// work is what a graph change asks the workers to look at.
type work struct {
	// attemptToDelete: objects whose owners may be gone, or owners in
	// foreground deletion whose dependents changed.
	attemptToDelete []types.UID
	// attemptToOrphan: owners whose dependents must be let go.
	attemptToOrphan []types.UID
}

// graph is the ownership graph, built from informer events.
type graph struct {
	mu    sync.Mutex
	nodes map[types.UID]*node
}

func newGraph() *graph { return &graph{nodes: map[types.UID]*node{}} }

// upsert records an object as the informer of resource saw it, and returns
// what the change calls for.
func (g *graph) upsert(resource schema.GroupVersionResource, obj *unstructured.Unstructured) work {
	g.mu.Lock()
	defer g.mu.Unlock()
	var w work
	n := g.nodes[obj.GetUID()]
	if n == nil {
		n = &node{dependents: map[types.UID]struct{}{}}
		g.nodes[obj.GetUID()] = n
	}
	oldOwners, newOwners := n.owners, obj.GetOwnerReferences()
	n.ref = refOf(obj)
	n.resource = resource
	n.observed = true
	n.owners = newOwners
	g.updateOwners(n, oldOwners, newOwners, &w)

	n.deleting = obj.GetDeletionTimestamp() != nil
	n.foreground = n.deleting && slices.Contains(obj.GetFinalizers(), metav1.FinalizerDeleteDependents)
	n.orphan = n.deleting && slices.Contains(obj.GetFinalizers(), metav1.FinalizerOrphanDependents)
	if n.orphan {
		w.attemptToOrphan = append(w.attemptToOrphan, n.ref.UID)
	}
	if n.foreground {
		// The owner itself, to finish once no dependent blocks it, and
		// every dependent, to be deleted (or to let go of it).
		w.attemptToDelete = append(w.attemptToDelete, n.ref.UID)
		for d := range n.dependents {
			w.attemptToDelete = append(w.attemptToDelete, d)
		}
	}
	return w
}

// updateOwners moves n between its owners' dependent sets as its owner
// references changed.
func (g *graph) updateOwners(n *node, oldOwners, newOwners []metav1.OwnerReference, w *work) {
	for _, old := range oldOwners {
		cur, kept := findOwner(newOwners, old.UID)
		if !kept {
			g.detach(n, old.UID, w)
			continue
		}
		// An owner in foreground deletion stops waiting for a dependent
		// that no longer blocks it.
		if blocks(old) && !blocks(cur) {
			if o := g.nodes[old.UID]; o != nil && o.foreground {
				w.attemptToDelete = append(w.attemptToDelete, old.UID)
			}
		}
	}
	for _, ref := range newOwners {
		if _, had := findOwner(oldOwners, ref.UID); had {
			continue
		}
		o := g.attach(n, ref)
		// An owner not (or no longer) seen may be absent: check the
		// dependent. So must a dependent that joins an owner already
		// deleting its dependents, or one whose owner lives in another
		// namespace (which the API treats as absent).
		if !o.observed || o.foreground || !sameScope(o, n) {
			w.attemptToDelete = append(w.attemptToDelete, n.ref.UID)
		}
	}
}

// remove forgets an object the informer saw deleted. Its dependents are
// returned for checking: their owner is gone.
func (g *graph) remove(uid types.UID) work {
	g.mu.Lock()
	defer g.mu.Unlock()
	var w work
	g.removeLocked(uid, &w)
	return w
}

func (g *graph) removeLocked(uid types.UID, w *work) {
	n := g.nodes[uid]
	if n == nil || !n.observed {
		return
	}
	for _, ref := range n.owners {
		g.detach(n, ref.UID, w)
	}
	if len(n.dependents) == 0 {
		delete(g.nodes, uid)
		return
	}
	*n = node{ref: n.ref, dependents: n.dependents}
	for d := range n.dependents {
		w.attemptToDelete = append(w.attemptToDelete, d)
	}
}

// removeResource forgets every object of a resource that is no longer
// watched, so a stale node cannot vouch for an owner nobody can see.
func (g *graph) removeResource(resource schema.GroupVersionResource) work {
	g.mu.Lock()
	defer g.mu.Unlock()
	var uids []types.UID
	for uid, n := range g.nodes {
		if n.observed && n.resource == resource {
			uids = append(uids, uid)
		}
	}
	var w work
	for _, uid := range uids {
		g.removeLocked(uid, &w)
	}
	return w
}

// attach adds n to the dependents of the owner ref names, creating a
// placeholder for an owner not seen yet.
func (g *graph) attach(n *node, ref metav1.OwnerReference) *node {
	o := g.nodes[ref.UID]
	if o == nil {
		o = &node{
			ref:        objectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID},
			dependents: map[types.UID]struct{}{},
		}
		g.nodes[ref.UID] = o
	}
	o.dependents[n.ref.UID] = struct{}{}
	return o
}

// detach removes n from an owner's dependents. An owner in foreground
// deletion is told, since it may now be free to go; a placeholder left
// with no dependents is dropped.
func (g *graph) detach(n *node, owner types.UID, w *work) {
	o := g.nodes[owner]
	if o == nil {
		return
	}
	delete(o.dependents, n.ref.UID)
	if o.foreground {
		w.attemptToDelete = append(w.attemptToDelete, owner)
	}
	if !o.observed && len(o.dependents) == 0 {
		delete(g.nodes, owner)
	}
}

// dependent is a dependent as a worker sees it.
type dependent struct {
	ref      objectRef
	resource schema.GroupVersionResource
	// blocking: its reference to the owner has blockOwnerDeletion.
	blocking bool
	// foreground: it is itself waiting for its own dependents.
	foreground bool
}

// view is a copy of a node for a worker to act on without the lock.
type view struct {
	ref        objectRef
	resource   schema.GroupVersionResource
	observed   bool
	deleting   bool
	dependents []dependent
}

// view copies the node with uid, if the graph has one.
func (g *graph) view(uid types.UID) (view, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[uid]
	if n == nil {
		return view{}, false
	}
	v := view{ref: n.ref, resource: n.resource, observed: n.observed, deleting: n.deleting}
	for d := range n.dependents {
		dn := g.nodes[d]
		if dn == nil {
			continue
		}
		ref, _ := findOwner(dn.owners, uid)
		v.dependents = append(v.dependents, dependent{
			ref: dn.ref, resource: dn.resource, blocking: blocks(ref), foreground: dn.foreground,
		})
	}
	return v, true
}

// blockingDependents are the dependents the owner must wait for in a
// foreground deletion.
func (v view) blockingDependents() []dependent {
	var out []dependent
	for _, d := range v.dependents {
		if d.blocking {
			out = append(out, d)
		}
	}
	return out
}

// anyDependentForeground reports whether a dependent is itself in
// foreground deletion.
func (v view) anyDependentForeground() bool {
	return slices.ContainsFunc(v.dependents, func(d dependent) bool { return d.foreground })
}

func refOf(obj *unstructured.Unstructured) objectRef {
	return objectRef{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()}
}

func findOwner(refs []metav1.OwnerReference, uid types.UID) (metav1.OwnerReference, bool) {
	for _, r := range refs {
		if r.UID == uid {
			return r, true
		}
	}
	return metav1.OwnerReference{}, false
}

func blocks(ref metav1.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// sameScope reports whether an observed owner can own n: a cluster-scoped
// owner can own anything, a namespaced one only objects in its namespace.
func sameScope(owner, n *node) bool {
	return owner.ref.Namespace == "" || owner.ref.Namespace == n.ref.Namespace
}
