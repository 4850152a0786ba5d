package workload

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func seeded(n int) []*corev1.ConfigMap {
	out := make([]*corev1.ConfigMap, n)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("seed-%d", i), ResourceVersion: "1"}}
	}
	return out
}

func TestWorkersOwnDisjointShares(t *testing.T) {
	objs := seeded(10)
	owner := map[string]int{}
	for id := range 3 {
		for _, cm := range newWorker(NewEnv(fake.NewClientset(), "ns", 0, nil), objs, id, 3).owned {
			if prev, dup := owner[cm.Name]; dup {
				t.Errorf("%s owned by workers %d and %d", cm.Name, prev, id)
			}
			owner[cm.Name] = id
		}
	}
	if len(owner) != 10 {
		t.Errorf("%d of 10 objects owned, want all", len(owner))
	}
}

// versionedServer stands in for an API server that bumps resourceVersion on
// each update and answers a stale one with 409, as the registry does.
type versionedServer struct {
	rv   map[string]int
	gets int
}

func (s *versionedServer) install(cs *fake.Clientset) {
	cs.PrependReactor("update", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cm := a.(k8stesting.UpdateAction).GetObject().(*corev1.ConfigMap).DeepCopy()
		if cm.ResourceVersion != strconv.Itoa(s.rv[cm.Name]) {
			return true, nil, apierrors.NewConflict(corev1.Resource("configmaps"), cm.Name, fmt.Errorf("stale %s", cm.ResourceVersion))
		}
		s.rv[cm.Name]++
		cm.ResourceVersion = strconv.Itoa(s.rv[cm.Name])
		return true, cm, nil
	})
	cs.PrependReactor("get", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s.gets++
		name := a.(k8stesting.GetAction).GetName()
		return true, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: strconv.Itoa(s.rv[name])}}, nil
	})
}

func TestUpdateUsesItsOwnLastWrite(t *testing.T) {
	cs := fake.NewClientset()
	srv := &versionedServer{rv: map[string]int{"seed-0": 1, "seed-1": 1}}
	srv.install(cs)
	w := newWorker(NewEnv(cs, "ns", 8, nil), seeded(2), 0, 1)
	ctx := context.Background()
	for i := range 6 {
		if err := w.update(ctx); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	if srv.gets != 0 || srv.rv["seed-0"] != 4 || srv.rv["seed-1"] != 4 {
		t.Errorf("gets/rv = %d/%v, want 0 GETs and 3 writes each", srv.gets, srv.rv)
	}
	// Someone else writes seed-0: the next update of it conflicts, and the
	// one after resynchronises with an unmeasured GET instead of failing forever.
	srv.rv["seed-0"] = 10
	if err := w.update(ctx); !apierrors.IsConflict(err) {
		t.Fatalf("update after a foreign write = %v, want Conflict", err)
	}
	_ = w.update(ctx) // seed-1
	w.prepareUpdate(ctx)
	if err := w.update(ctx); err != nil || srv.gets != 1 {
		t.Errorf("update after resync = %v with %d GETs, want success after 1 GET", err, srv.gets)
	}
}
