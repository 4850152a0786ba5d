package garbagecollector

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ownerState is what an owner reference points at, as the API answers.
type ownerState int

const (
	// solid: the owner exists and is not deleting its dependents.
	solid ownerState = iota
	// dangling: no object with that name and uid exists (it is gone, or
	// its name now belongs to another object).
	dangling
	// waiting: the owner exists and is in foreground deletion, waiting for
	// its dependents to go.
	waiting
)

// verdict sorts an object's owner references by state.
type verdict struct {
	solid, dangling, waiting []metav1.OwnerReference
}

func (v *verdict) add(ref metav1.OwnerReference, s ownerState) {
	switch s {
	case solid:
		v.solid = append(v.solid, ref)
	case dangling:
		v.dangling = append(v.dangling, ref)
	case waiting:
		v.waiting = append(v.waiting, ref)
	}
}

// action is what the collector does to one object.
type action struct {
	// removeOwners lists owner references to drop from the object, which
	// is kept because another owner still holds it.
	removeOwners []types.UID
	// delete the object with policy.
	delete bool
	policy metav1.DeletionPropagation
	// unblock clears blockOwnerDeletion on the object's own references
	// before deleting it, to break a cycle of foreground deletions.
	unblock bool
	// why is said in the log.
	why string
}

// decide applies kube's ownerReference rules to one object that is not
// itself being deleted:
//   - an owner that still holds it (solid) keeps it; references to owners
//     that are gone or deleting their dependents are dropped;
//   - with no solid owner, an object that is the dependent of a foreground
//     deletion and has dependents of its own is deleted in the foreground
//     too, so the deletion proceeds leaves first;
//   - otherwise it is deleted, honouring a policy it already carries as a
//     finalizer, else in the background.
func decide(v verdict, hasDependents, dependentInForeground bool, finalizers []string) action {
	if len(v.solid) > 0 {
		if len(v.dangling) == 0 && len(v.waiting) == 0 {
			return action{}
		}
		var uids []types.UID
		for _, r := range append(slices.Clone(v.dangling), v.waiting...) {
			uids = append(uids, r.UID)
		}
		return action{removeOwners: uids, why: "another owner still holds it"}
	}
	if len(v.waiting) > 0 && hasDependents {
		// If one of our dependents is itself waiting on its dependents, we
		// may be in a cycle; unblocking our references lets our owners
		// finish without waiting for us.
		return action{delete: true, policy: metav1.DeletePropagationForeground, unblock: dependentInForeground,
			why: "an owner is deleting its dependents in the foreground"}
	}
	why := "every owner is gone"
	if len(v.waiting) > 0 {
		why = "an owner is deleting its dependents in the foreground"
	}
	switch {
	case slices.Contains(finalizers, metav1.FinalizerOrphanDependents):
		return action{delete: true, policy: metav1.DeletePropagationOrphan, why: why}
	case slices.Contains(finalizers, metav1.FinalizerDeleteDependents):
		return action{delete: true, policy: metav1.DeletePropagationForeground, why: why}
	}
	return action{delete: true, policy: metav1.DeletePropagationBackground, why: why}
}
