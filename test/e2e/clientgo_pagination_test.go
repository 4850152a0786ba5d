package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// pagedObjects is how many objects the pagination test lists.
const pagedObjects = 500

// TestClientGoPaginationUnderWrites lists 500 ConfigMaps 50 at a time
// while another goroutine creates, updates and deletes them. Every page
// comes from the snapshot of the first: the union of the pages is exactly
// what a list at that resourceVersion with resourceVersionMatch=Exact
// returns, names and resourceVersions alike, with no object twice.
func TestClientGoPaginationUnderWrites(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	const ns = "default"
	createMany(t, c, ns, pagedObjects)

	cms := c.CoreV1().ConfigMaps(ns)
	first, err := cms.List(ctx(t), metav1.ListOptions{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if first.Continue == "" || len(first.Items) != 50 {
		t.Fatalf("first page: %d items, continue %q", len(first.Items), first.Continue)
	}
	if rem := first.RemainingItemCount; rem == nil || *rem != pagedObjects-50 {
		t.Errorf("first page's remainingItemCount = %v, want %d", rem, pagedObjects-50)
	}

	w := startWriter(t, c, ns)
	pages := []*corev1.ConfigMapList{first}
	for next := first.Continue; next != ""; {
		// Let the writer get ahead between pages, so writes land in the
		// middle of the listing for certain.
		w.waitFor(t, w.done()+6)
		page, err := cms.List(ctx(t), metav1.ListOptions{Limit: 50, Continue: next})
		if err != nil {
			t.Fatalf("page %d: %v", len(pages)+1, err)
		}
		if page.ResourceVersion != first.ResourceVersion {
			t.Errorf("page %d is at resourceVersion %s, the first at %s", len(pages)+1, page.ResourceVersion, first.ResourceVersion)
		}
		pages = append(pages, page)
		next = page.Continue
	}
	w.stop(t)

	union := map[string]string{}
	for i, page := range pages {
		if i < len(pages)-1 && len(page.Items) != 50 {
			t.Errorf("page %d has %d items, want 50", i+1, len(page.Items))
		}
		for _, item := range page.Items {
			if _, dup := union[item.Name]; dup {
				t.Errorf("%s is on two pages", item.Name)
			}
			union[item.Name] = item.ResourceVersion
		}
	}
	exact, err := cms.List(ctx(t), metav1.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if exact.ResourceVersion != first.ResourceVersion {
		t.Errorf("exact list answered at resourceVersion %s, asked for %s", exact.ResourceVersion, first.ResourceVersion)
	}
	want := map[string]string{}
	for _, item := range exact.Items {
		want[item.Name] = item.ResourceVersion
	}
	if len(want) != pagedObjects {
		t.Errorf("the exact list at the first page's resourceVersion has %d objects, want %d", len(want), pagedObjects)
	}
	if diff := mapDiff(union, want); diff != "" {
		t.Errorf("pages differ from the snapshot at resourceVersion %s:\n%s", first.ResourceVersion, diff)
	}
	// And the writes did happen: the current state is not the snapshot.
	now, err := cms.List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]string{}
	for _, item := range now.Items {
		current[item.Name] = item.ResourceVersion
	}
	if mapDiff(current, want) == "" {
		t.Error("the writer changed nothing during the listing")
	}
	t.Logf("%d pages; the writer made %d writes meanwhile", len(pages), w.done())
}

// createMany creates n ConfigMaps named cm-000, cm-001, … a few at a time.
func createMany(t *testing.T, c kubernetes.Interface, ns string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := atomic.Int64{}
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)}, Data: map[string]string{"v": "0"}}
				if _, err := c.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// writer creates, updates and deletes ConfigMaps in a loop until stopped,
// counting its writes so a test can wait for it to make progress.
type writer struct {
	cancel   context.CancelFunc
	finished chan error
	mu       sync.Mutex
	count    int
	progress chan struct{} // closed and replaced on every write
}

func startWriter(t *testing.T, c kubernetes.Interface, ns string) *writer {
	t.Helper()
	wctx, cancel := context.WithCancel(context.Background())
	w := &writer{cancel: cancel, finished: make(chan error, 1), progress: make(chan struct{})}
	t.Cleanup(cancel)
	cms := c.CoreV1().ConfigMaps(ns)
	go func() {
		w.finished <- func() error {
			for i := 0; wctx.Err() == nil; i++ {
				// Spread the writes over the key space, so they land both in
				// pages already read and in pages still to come.
				target := fmt.Sprintf("cm-%03d", (i*37)%pagedObjects)
				var err error
				switch i % 3 {
				case 0:
					_, err = cms.Create(wctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-new-%d", target, i)}}, metav1.CreateOptions{})
				case 1:
					var cur *corev1.ConfigMap
					if cur, err = cms.Get(wctx, target, metav1.GetOptions{}); err == nil {
						cur.Data = map[string]string{"v": fmt.Sprint(i)}
						_, err = cms.Update(wctx, cur, metav1.UpdateOptions{})
					}
				case 2:
					err = cms.Delete(wctx, target, metav1.DeleteOptions{})
				}
				if wctx.Err() != nil {
					return nil
				}
				if err != nil && !isGoneOrConflict(err) {
					return fmt.Errorf("write %d on %s: %w", i, target, err)
				}
				w.mu.Lock()
				w.count++
				close(w.progress)
				w.progress = make(chan struct{})
				w.mu.Unlock()
			}
			return nil
		}()
	}()
	return w
}

func (w *writer) done() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count
}

// waitFor blocks until the writer has made n writes.
func (w *writer) waitFor(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		w.mu.Lock()
		count, progress := w.count, w.progress
		w.mu.Unlock()
		if count >= n {
			return
		}
		select {
		case <-progress:
		case err := <-w.finished:
			t.Fatalf("the writer stopped after %d writes: %v", count, err)
		case <-timeout:
			t.Fatalf("the writer made %d writes in 30s, want %d", count, n)
		}
	}
}

func (w *writer) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	if err := <-w.finished; err != nil {
		t.Fatal(err)
	}
}

// mapDiff describes how two name→resourceVersion maps differ.
func mapDiff(got, want map[string]string) string {
	var out []string
	for k, v := range got {
		if w, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("  extra %s@%s", k, v))
		} else if w != v {
			out = append(out, fmt.Sprintf("  %s at %s, want %s", k, v, w))
		}
	}
	for k, v := range want {
		if _, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("  missing %s@%s", k, v))
		}
	}
	sort.Strings(out)
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("  … and %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}

// isGoneOrConflict accepts the errors a writer racing nobody but itself
// still meets: the object it picked was deleted earlier.
func isGoneOrConflict(err error) bool {
	return apierrors.IsNotFound(err) || apierrors.IsConflict(err)
}
