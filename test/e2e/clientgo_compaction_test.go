package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestClientGoGoneAfterCompaction compacts etcd past a list's snapshot:
// continuing the list, listing at that resourceVersion exactly and
// watching from it all answer 410, which is what tells client-go's
// reflectors to relist.
func TestClientGoGoneAfterCompaction(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	cms := c.CoreV1().ConfigMaps("default")
	for i := range 10 {
		createConfigMap(t, cms, fmt.Sprintf("cm-%d", i), nil)
	}
	page, err := cms.List(ctx(t), metav1.ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if page.Continue == "" {
		t.Fatal("no continue token after 3 of 10 objects")
	}
	// Rewrite every object, so the snapshot's versions exist only in the
	// history that compaction removes.
	for i := range 10 {
		patch := []byte(fmt.Sprintf(`{"data":{"i":"%d"}}`, i))
		if _, err := cms.Patch(ctx(t), fmt.Sprintf("cm-%d", i), "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rev := etcdRevision(t, r)
	if _, err := r.Etcd.Client.Compact(ctx(t), rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}

	t.Run("continue", func(t *testing.T) {
		_, err := cms.List(ctx(t), metav1.ListOptions{Limit: 3, Continue: page.Continue})
		assertExpired(t, err)
	})
	t.Run("exact list", func(t *testing.T) {
		_, err := cms.List(ctx(t), metav1.ListOptions{ResourceVersion: page.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		assertExpired(t, err)
	})
	t.Run("fresh list still works", func(t *testing.T) {
		list, err := cms.List(ctx(t), metav1.ListOptions{Limit: 3})
		if err != nil || len(list.Items) != 3 || list.Continue == "" {
			t.Fatalf("list after compaction: %v", err)
		}
		if _, err := cms.List(ctx(t), metav1.ListOptions{Limit: 3, Continue: list.Continue}); err != nil {
			t.Errorf("continuing a list begun after compaction: %v", err)
		}
	})
	t.Run("watch", func(t *testing.T) {
		// The registry that served the list still holds those events in its
		// watch cache, as kube-apiserver's does; a replica started after the
		// compaction must go to etcd for them, and etcd has lost them.
		replica := r.StartReplica(t)
		w, err := replica.Client(t).CoreV1().ConfigMaps("default").Watch(ctx(t), metav1.ListOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			// kube may also refuse the watch outright with 410.
			assertExpired(t, err)
			return
		}
		defer w.Stop()
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch closed without an event")
			}
			if ev.Type != watch.Error {
				t.Fatalf("first event of a watch from a compacted resourceVersion is %s %v, want ERROR", ev.Type, ev.Object)
			}
			status, ok := ev.Object.(*metav1.Status)
			if !ok {
				t.Fatalf("ERROR event carries %T, want a Status", ev.Object)
			}
			if status.Code != http.StatusGone || status.Reason != metav1.StatusReasonExpired {
				t.Errorf("ERROR event: code %d reason %q, want 410 Expired (%s)", status.Code, status.Reason, status.Message)
			}
			assertExpired(t, apierrors.FromObject(status))
		case <-time.After(30 * time.Second):
			t.Fatal("no event within 30s from a watch at a compacted resourceVersion")
		}
	})
}

// assertExpired checks that err is kube's 410 for a compacted
// resourceVersion.
func assertExpired(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("succeeded, want 410 Expired")
	}
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("%v, want 410 Gone/Expired", err)
	}
	var status apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		status = s
	}
	if status == nil || status.Status().Code != http.StatusGone {
		t.Errorf("%v: want status code 410", err)
	}
}
