package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// watchedUpdates is how many updates the resume test follows.
const watchedUpdates = 1000

// TestClientGoWatchResume follows 1,000 updates of one ConfigMap through
// watches that are stopped and resumed from the last resourceVersion seen,
// while the updates keep coming: the values seen must be exactly 1…1000,
// in order, none missing and none twice.
func TestClientGoWatchResume(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	cms := c.CoreV1().ConfigMaps("default")
	cm := createConfigMap(t, cms, "counter", map[string]string{"v": "0"})
	// A neighbour whose changes the field selector must filter out.
	createConfigMap(t, cms, "noise", nil)

	writerDone := make(chan error, 1)
	go func() { writerDone <- count(ctx(t), c, cm) }()

	f := &followed{rv: cm.ResourceVersion}
	// Stop the watch at three points while the writer runs, resuming each
	// time from the last resourceVersion delivered.
	for _, stopAt := range []int{250, 500, 750, watchedUpdates} {
		f.follow(t, c, stopAt)
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	f.check(t, 1)

	// A replica started now has none of that history in its cache: resuming
	// there from the middle is served from etcd, with the same guarantee.
	replica := r.StartReplica(t)
	g := &followed{rv: f.rvs[499]}
	g.follow(t, replica.Client(t), watchedUpdates)
	g.check(t, 501)
}

// followed is what a sequence of watches delivered: the values in order
// and the resourceVersion of each.
type followed struct {
	values []int
	rvs    []string
	rv     string // the last resourceVersion delivered
}

// check fails the test unless the values are exactly from, from+1, …,
// watchedUpdates.
func (f *followed) check(t *testing.T, from int) {
	t.Helper()
	for i, v := range f.values {
		if v != from+i {
			t.Fatalf("value %d seen where %d was due: the sequence has a gap or a duplicate (values around it: %v)",
				v, from+i, f.values[max(0, i-2):min(len(f.values), i+3)])
		}
	}
	if want := watchedUpdates - from + 1; len(f.values) != want {
		t.Fatalf("saw %d updates, want %d", len(f.values), want)
	}
}

// count updates cm's value from 1 to watchedUpdates, one write at a time.
func count(ctx context.Context, c kubernetes.Interface, cm *corev1.ConfigMap) error {
	cur := cm.DeepCopy()
	for i := 1; i <= watchedUpdates; i++ {
		cur.Data["v"] = strconv.Itoa(i)
		next, err := c.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("update %d: %w", i, err)
		}
		cur = next
		if i%100 == 0 {
			_, _ = c.CoreV1().ConfigMaps(cm.Namespace).Patch(ctx, "noise", "application/merge-patch+json",
				[]byte(fmt.Sprintf(`{"data":{"v":"%d"}}`, i)), metav1.PatchOptions{})
		}
	}
	return nil
}

// follow watches counter from the last resourceVersion delivered until it
// has seen value stopAt, then stops the watch.
func (f *followed) follow(t *testing.T, c kubernetes.Interface, stopAt int) {
	t.Helper()
	w, err := c.CoreV1().ConfigMaps("default").Watch(ctx(t), metav1.ListOptions{
		ResourceVersion: f.rv,
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", "counter").String(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch from resourceVersion %s closed after value %v", f.rv, last(f.values))
			}
			if ev.Type != watch.Modified {
				t.Fatalf("unexpected %s event: %#v", ev.Type, ev.Object)
			}
			cm := ev.Object.(*corev1.ConfigMap)
			if cm.Name != "counter" {
				t.Fatalf("the field selector let %s through", cm.Name)
			}
			if mustInt(t, cm.ResourceVersion) <= mustInt(t, f.rv) {
				t.Fatalf("resourceVersion went from %s to %s", f.rv, cm.ResourceVersion)
			}
			v, err := strconv.Atoi(cm.Data["v"])
			if err != nil {
				t.Fatal(err)
			}
			f.values, f.rvs, f.rv = append(f.values, v), append(f.rvs, cm.ResourceVersion), cm.ResourceVersion
			if v >= stopAt {
				return
			}
		case <-timeout:
			t.Fatalf("no value %d within 60s; last seen %v", stopAt, last(f.values))
		}
	}
}

func last(s []int) any {
	if len(s) == 0 {
		return "none"
	}
	return s[len(s)-1]
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not an integer", s)
	}
	return n
}
