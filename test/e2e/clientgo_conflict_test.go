package e2e

import (
	"fmt"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestClientGoConflict races two updates made from the same
// resourceVersion, many times: exactly one wins and the other gets 409
// Conflict, so optimistic concurrency never loses a write.
func TestClientGoConflict(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	cms := c.CoreV1().ConfigMaps("default")
	cm := createConfigMap(t, cms, "contended", map[string]string{"v": "0"})
	for round := 1; round <= 25; round++ {
		start := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			mine := cm.DeepCopy()
			mine.Data["v"] = fmt.Sprintf("%d-%d", round, i)
			wg.Go(func() {
				<-start
				_, errs[i] = cms.Update(ctx(t), mine, metav1.UpdateOptions{})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil:
				winner = i
			case !apierrors.IsConflict(err):
				t.Fatalf("round %d: update %d failed with %v, want success or Conflict", round, i, err)
			}
		}
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: want exactly one update to win, got errors %v", round, errs)
		}
		var err error
		if cm, err = cms.Get(ctx(t), "contended", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%d-%d", round, winner); cm.Data["v"] != want {
			t.Fatalf("round %d: stored %q, want the winner's %q", round, cm.Data["v"], want)
		}
	}

	// The Conflict is a proper Status: reason, code and details.
	stale := cm.DeepCopy()
	cm.Data["v"] = "fresh"
	if _, err := cms.Update(ctx(t), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Data["v"] = "stale"
	_, err := cms.Update(ctx(t), stale, metav1.UpdateOptions{})
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Code != 409 || status.Status().Reason != metav1.StatusReasonConflict ||
		status.Status().Details == nil || status.Status().Details.Name != "contended" || status.Status().Details.Kind != "configmaps" {
		t.Errorf("stale update: %#v, want a 409 Conflict naming configmaps/contended", err)
	}

	// Preconditions elsewhere conflict the same way: a patch carrying a
	// stale resourceVersion, and a delete with one.
	patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"v":"patched"}}`, stale.ResourceVersion)
	if _, err := cms.Patch(ctx(t), "contended", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("patch with a stale resourceVersion: %v, want Conflict", err)
	}
	if err := cms.Delete(ctx(t), "contended", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale.ResourceVersion}}); !apierrors.IsConflict(err) {
		t.Errorf("delete with a stale resourceVersion precondition: %v, want Conflict", err)
	}
	if got, err := cms.Get(ctx(t), "contended", metav1.GetOptions{}); err != nil || got.Data["v"] != "fresh" {
		t.Errorf("after the refused writes: %v %v, want v=fresh", got.Data, err)
	}
}
