package garbagecollector

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func owner(uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: uid, UID: types.UID(uid)}
}

func TestDecide(t *testing.T) {
	bg, fg, orphan := metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan
	cases := []struct {
		name          string
		v             verdict
		hasDeps       bool
		depForeground bool
		finalizers    []string
		want          action
	}{
		{name: "all owners exist", v: verdict{solid: []metav1.OwnerReference{owner("a"), owner("b")}}, want: action{}},
		{name: "one owner gone, one exists: drop the dangling reference",
			v:    verdict{solid: []metav1.OwnerReference{owner("a")}, dangling: []metav1.OwnerReference{owner("b")}},
			want: action{removeOwners: []types.UID{"b"}}},
		{name: "owner exists, another waits on dependents: drop the waiting reference",
			v:    verdict{solid: []metav1.OwnerReference{owner("a")}, waiting: []metav1.OwnerReference{owner("w")}},
			want: action{removeOwners: []types.UID{"w"}}},
		{name: "all owners gone: background delete", v: verdict{dangling: []metav1.OwnerReference{owner("a"), owner("b")}},
			want: action{delete: true, policy: bg}},
		{name: "owner waiting, no own dependents: background delete", v: verdict{waiting: []metav1.OwnerReference{owner("w")}},
			want: action{delete: true, policy: bg}},
		{name: "owner waiting, own dependents: foreground delete", v: verdict{waiting: []metav1.OwnerReference{owner("w")}},
			hasDeps: true, want: action{delete: true, policy: fg}},
		{name: "owner waiting, a dependent waiting too: unblock then foreground",
			v: verdict{waiting: []metav1.OwnerReference{owner("w")}}, hasDeps: true, depForeground: true,
			want: action{delete: true, policy: fg, unblock: true}},
		{name: "orphan finalizer already present is honoured", v: verdict{dangling: []metav1.OwnerReference{owner("a")}},
			finalizers: []string{metav1.FinalizerOrphanDependents}, want: action{delete: true, policy: orphan}},
		{name: "foreground finalizer already present is honoured", v: verdict{dangling: []metav1.OwnerReference{owner("a")}},
			finalizers: []string{metav1.FinalizerDeleteDependents}, want: action{delete: true, policy: fg}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.v, tc.hasDeps, tc.depForeground, tc.finalizers)
			if got.delete != tc.want.delete || got.policy != tc.want.policy || got.unblock != tc.want.unblock ||
				len(got.removeOwners) != len(tc.want.removeOwners) {
				t.Fatalf("decide = %+v, want %+v", got, tc.want)
			}
			for i := range got.removeOwners {
				if got.removeOwners[i] != tc.want.removeOwners[i] {
					t.Fatalf("removeOwners = %v, want %v", got.removeOwners, tc.want.removeOwners)
				}
			}
		})
	}
}
