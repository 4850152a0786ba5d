package handler

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// The hooks of kinds with an Allocator (Services' cluster IPs and node
// ports): allocate runs in checkCreate and checkUpdate between mutating
// admission and validation, as kube's BeginCreate and BeginUpdate do, so
// validation and validating admission see what was allocated; settle runs
// once the store has answered, keeping it or giving it back.

// allocate gives obj, on its create (cur nil) or an update of the object
// itself, what its kind allocates. What an earlier attempt of the same
// write was given is given back first: that attempt was not stored (a
// generated name taken, a store retry on a concurrent write).
func (q *request) allocate(wr *write, obj, cur *unstructured.Unstructured) error {
	a := q.res.Allocator
	if a == nil || q.info.Subresource != "" {
		return nil
	}
	if wr.alloc != nil {
		wr.alloc.Revert()
		wr.alloc = nil
	}
	al, err := a.Allocate(q.r.Context(), obj, cur, wr.dryRun)
	if err != nil {
		return err
	}
	wr.alloc = al
	return nil
}

// settle ends a write's allocation once the store answered err: kept
// when the write was stored, given back when not. An update that deleted
// its object (an object being deleted that lost its last finalizer) gives
// back all it held.
func (q *request) settle(wr *write, stored *storage.Object, err error) {
	if q.res.Allocator == nil {
		return
	}
	if al := wr.alloc; al != nil {
		wr.alloc = nil
		if err != nil {
			al.Revert()
			return
		}
		al.Commit()
	}
	if err == nil && stored != nil {
		q.releaseIfGone(stored, wr.dryRun)
	}
}

// releaseIfGone gives back what an object held if the write that stored
// it deleted it: marked for deletion with no finalizer left, which the
// store deletes for kinds without a grace period, as every kind with an
// Allocator is.
func (q *request) releaseIfGone(stored *storage.Object, dryRun bool) {
	if q.res.Allocator == nil || dryRun {
		return
	}
	if obj := stored.Decode(); obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0 {
		q.res.Allocator.Release(q.r.Context(), obj)
	}
}

// release gives back what a deleted object held.
func (q *request) release(gone *storage.Object, dryRun bool) {
	if a := q.res.Allocator; a != nil && !dryRun {
		a.Release(q.r.Context(), gone.Decode())
	}
}
