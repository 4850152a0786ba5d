package storage

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// events reads a watch in order: its initial events, then its channel.
type events struct {
	t *testing.T
	w *Watch
	i int
}

func read(t *testing.T, w *Watch) *events {
	t.Cleanup(w.Stop)
	return &events{t: t, w: w}
}

// next returns the next event, failing the test if none comes.
func (e *events) next() Event {
	e.t.Helper()
	if e.i < len(e.w.Initial) {
		e.i++
		return e.w.Initial[e.i-1]
	}
	select {
	case ev, ok := <-e.w.Events:
		if !ok {
			e.t.Fatal("watch closed")
		}
		return ev
	case <-time.After(testTimeout):
		e.t.Fatal("no event")
	}
	return Event{}
}

// expect reads one event and checks its type, name and revision.
func (e *events) expect(typ watch.EventType, name string, rev int64) {
	e.t.Helper()
	ev := e.next()
	if ev.Type != typ || ev.Object == nil || ev.Object.Name() != name || ev.Object.Rev != rev {
		e.t.Fatalf("event %s, want %s %s at %d", describe(ev), typ, name, rev)
	}
	if ev.Object.Decode().GetResourceVersion() != itoa(rev) {
		e.t.Fatalf("event at %d carries resourceVersion %s", rev, ev.Object.Decode().GetResourceVersion())
	}
}

func describe(ev Event) string {
	if ev.Object == nil {
		return fmt.Sprintf("%s (%v)", ev.Type, ev.Err)
	}
	return fmt.Sprintf("%s %s at %d", ev.Type, ev.Object.Name(), ev.Object.Rev)
}

func watchFrom(rv int64) WatchOptions {
	return WatchOptions{ReadOptions: ReadOptions{ResourceVersion: itoa(rv)}}
}

// createAndUpdate creates config map ns/a and then updates it n times; it
// returns the created object and the revision of each update, in order.
func createAndUpdate(t *testing.T, ctx context.Context, s *Store, n int) (*Object, []int64) {
	t.Helper()
	first, err := s.Create(ctx, configMap("ns", "a", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	var revs []int64
	for i := 0; i < n; i++ {
		obj, err := s.Update(ctx, "ns", "a", setData("i", itoa(int64(i))), false)
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, obj.Rev)
	}
	return first, revs
}

// Watches started at many revisions while writes go on each see exactly
// the writes after their revision, once each, in order.
func TestWatchFromResourceVersionExactlyOnceInOrder(t *testing.T) {
	_, s, ctx := configMaps(t)
	const writes = 60
	type write struct {
		typ  watch.EventType
		name string
		rev  int64
	}
	var (
		mu      sync.Mutex
		written []write
	)
	started := make(chan int64, writes)
	errs := make(chan error, 1)
	go func() {
		defer close(started)
		for i := 0; i < writes; i++ {
			name := fmt.Sprintf("cm-%d", i%7)
			var obj *Object
			var err error
			typ := watch.Added
			switch {
			case i%5 == 4:
				typ = watch.Deleted
				obj, err = s.Delete(ctx, "ns", name, func(*Object) error { return nil }, false)
			default:
				if obj, err = s.Create(ctx, configMap("ns", name, nil, map[string]any{"i": itoa(int64(i))}), false); apierrors.IsAlreadyExists(err) {
					typ = watch.Modified
					obj, err = s.Update(ctx, "ns", name, setData("i", itoa(int64(i))), false)
				}
			}
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			written = append(written, write{typ, name, obj.Rev})
			mu.Unlock()
			started <- obj.Rev
		}
	}()
	var watches []*events
	var from []int64
	for rev := range started {
		if len(watches) < 8 && rev%3 == 0 {
			w, err := s.Watch(ctx, "ns", watchFrom(rev))
			if err != nil {
				t.Fatal(err)
			}
			if _, cached := s.WatchRevision(w); !cached {
				t.Fatal("a watch from a recent revision was not served from the cache")
			}
			watches = append(watches, read(t, w))
			from = append(from, rev)
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	sentinel, err := s.Create(ctx, configMap("ns", "sentinel", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(watches) == 0 {
		t.Fatal("no watch started")
	}
	for i, w := range watches {
		for _, wr := range written {
			if wr.rev > from[i] {
				w.expect(wr.typ, wr.name, wr.rev)
			}
		}
		// Nothing repeated or extra before the next write.
		w.expect(watch.Added, "sentinel", sentinel.Rev)
	}
}

// A watch from before the cache's history is served from etcd, still
// exactly once and in order, and goes on with live events.
func TestWatchOlderThanHistoryComesFromEtcd(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	s := r.storeWithHistory(t, "configmaps", 2)
	ctx := testCtx(t)
	first, revs := createAndUpdate(t, ctx, s, 5)
	w, err := s.Watch(ctx, "ns", watchFrom(first.Rev))
	if err != nil {
		t.Fatal(err)
	}
	if _, cached := s.WatchRevision(w); cached {
		t.Fatal("watch past the history was served from the cache")
	}
	ev := read(t, w)
	for _, rev := range revs {
		ev.expect(watch.Modified, "a", rev)
	}
	gone, err := s.Delete(ctx, "ns", "a", func(*Object) error { return nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	ev.expect(watch.Deleted, "a", gone.Rev)
}

// A watch from a compacted revision ends with an ERROR event carrying a
// 410 Expired status, on which clients relist.
func TestWatchCompactedRevisionIsExpired(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	s := r.storeWithHistory(t, "configmaps", 2)
	ctx := testCtx(t)
	first, _ := createAndUpdate(t, ctx, s, 4)
	if _, err := r.client.Compact(ctx, etcdRev(t, r.client)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, "ns", watchFrom(first.Rev))
	if err != nil {
		t.Fatal(err)
	}
	ev := read(t, w).next()
	if ev.Type != watch.Error {
		t.Fatalf("got %s, want an ERROR event", describe(ev))
	}
	status, ok := ev.Err.(apierrors.APIStatus)
	if !ok || status.Status().Code != http.StatusGone || !apierrors.IsResourceExpired(ev.Err) {
		t.Fatalf("error event carries %v, want 410 Expired", ev.Err)
	}
	select {
	case _, open := <-w.Events:
		if open {
			t.Fatal("watch went on after its error")
		}
	case <-time.After(testTimeout):
		t.Fatal("watch not closed after its error")
	}
	// The cache itself is unaffected and serves new watches.
	if _, err := s.Update(ctx, "ns", "a", setData("after", "compaction"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "ns", "a", ReadOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A watch with a selector sees an object that moves into the selector as
// ADDED and one that moves out of it as DELETED, whether the watch is fed
// live, from the cache's history or from etcd.
func TestFilteredWatchTranslatesSelectorMoves(t *testing.T) {
	sel := Selector{Label: labels.SelectorFromSet(labels.Set{"app": "web"})}
	for _, source := range []string{"live", "history", "etcd"} {
		t.Run(source, func(t *testing.T) {
			r := newReplica(t, startEtcd(t))
			size := 100
			if source == "etcd" {
				size = 1
			}
			s := r.storeWithHistory(t, "configmaps", size)
			ctx := testCtx(t)
			start := etcdRev(t, r.client)
			var w *Watch
			var err error
			watchNow := func() {
				if w, err = s.Watch(ctx, "ns", WatchOptions{ReadOptions: ReadOptions{ResourceVersion: itoa(start)}, Selector: sel}); err != nil {
					t.Fatal(err)
				}
			}
			if source == "live" {
				watchNow()
			}
			relabel := func(app string) *Object {
				obj, err := s.Update(ctx, "ns", "a", func(cur *Object) (*unstructured.Unstructured, error) {
					next := cur.Decode()
					next.SetLabels(map[string]string{"app": app})
					return next, nil
				}, false)
				if err != nil {
					t.Fatal(err)
				}
				return obj
			}
			if _, err := s.Create(ctx, configMap("ns", "a", map[string]string{"app": "db"}, nil), false); err != nil {
				t.Fatal(err)
			}
			in := relabel("web")
			changed, err := s.Update(ctx, "ns", "a", setData("k", "v"), false)
			if err != nil {
				t.Fatal(err)
			}
			out := relabel("db")
			if _, err := s.Update(ctx, "ns", "a", setData("k", "unseen"), false); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Delete(ctx, "ns", "a", func(*Object) error { return nil }, false); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Create(ctx, configMap("other", "web", map[string]string{"app": "web"}, nil), false); err != nil {
				t.Fatal(err)
			}
			if source != "live" {
				// A consistent read first: the cache must have applied every
				// write above, or the one-event history may still reach back
				// to start and serve the watch itself.
				if _, err := s.Get(ctx, "other", "web", ReadOptions{}); err != nil {
					t.Fatal(err)
				}
				watchNow()
			}
			if _, cached := s.WatchRevision(w); cached != (source != "etcd") {
				t.Fatalf("served from cache: %v", cached)
			}
			sentinel, err := s.Create(ctx, configMap("ns", "sentinel", map[string]string{"app": "web"}, nil), false)
			if err != nil {
				t.Fatal(err)
			}
			ev := read(t, w)
			ev.expect(watch.Added, "a", in.Rev)
			ev.expect(watch.Modified, "a", changed.Rev)
			ev.expect(watch.Deleted, "a", out.Rev)
			ev.expect(watch.Added, "sentinel", sentinel.Rev)
		})
	}
}

// A watch that starts without a resourceVersion gets the current state as
// ADDED events first, then what changes.
func TestWatchWithoutResourceVersionStartsWithState(t *testing.T) {
	_, s, ctx := configMaps(t)
	b, err := s.Create(ctx, configMap("ns", "b", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Create(ctx, configMap("ns", "a", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, "ns", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Initial) != 2 || w.Rev != a.Rev {
		t.Fatalf("%d initial events at %d, want 2 at %d", len(w.Initial), w.Rev, a.Rev)
	}
	ev := read(t, w)
	ev.expect(watch.Added, "a", a.Rev)
	ev.expect(watch.Added, "b", b.Rev)
	c, err := s.Create(ctx, configMap("ns", "c", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	ev.expect(watch.Added, "c", c.Rev)
}

// A watcher that stops reading is closed once its buffer is full, and
// the others go on receiving every event.
func TestSlowWatcherIsClosedNotWaitedFor(t *testing.T) {
	r, s, ctx := configMaps(t)
	// A watcher with room for one event, registered as Watch registers
	// them, so the test need not write thousands of objects.
	slow := &cacheWatcher{filter: filter{prefix: s.info.KeyPrefix(), match: func(*Object) bool { return true }}, ch: make(chan Event, 1)}
	s.cache.mu.Lock()
	s.cache.watchers[slow] = struct{}{}
	s.cache.mu.Unlock()
	w, err := s.Watch(ctx, "ns", watchFrom(etcdRev(t, r.client)))
	if err != nil {
		t.Fatal(err)
	}
	fast := read(t, w)
	for i := 0; i < 5; i++ {
		obj, err := s.Create(ctx, configMap("ns", fmt.Sprintf("cm-%d", i), nil, nil), false)
		if err != nil {
			t.Fatal(err)
		}
		fast.expect(watch.Added, obj.Name(), obj.Rev)
	}
	if ev := <-slow.ch; ev.Object.Name() != "cm-0" {
		t.Fatalf("slow watcher's buffered event: %s", describe(ev))
	}
	if _, open := <-slow.ch; open {
		t.Fatal("slow watcher still open after falling behind")
	}
	s.cache.mu.RLock()
	_, registered := s.cache.watchers[slow]
	s.cache.mu.RUnlock()
	if registered {
		t.Fatal("slow watcher still registered")
	}
}

// When a cache's watch breaks, it relists; what changed meanwhile reaches
// its watchers as a difference, not event by event. A watch resuming from
// a revision in that gap must get the real events from etcd (or 410 when
// they were compacted), not the difference.
func TestWatchAcrossRelistGap(t *testing.T) {
	for _, compacted := range []bool{false, true} {
		r := newReplica(t, startEtcd(t))
		ctx := testCtx(t)
		// A cache driven by hand: filled, then blind while a writer works,
		// then relisted as run does after its watch broke.
		s := r.handDrivenStore(t, ctx, "configmaps")
		writer := r.store(t, "configmaps", StoreOptions{})
		first, err := writer.Create(ctx, configMap("ns", "a", nil, nil), false)
		if err != nil {
			t.Fatal(err)
		}
		second, err := writer.Update(ctx, "ns", "a", setData("k", "1"), false)
		if err != nil {
			t.Fatal(err)
		}
		third, err := writer.Update(ctx, "ns", "a", setData("k", "2"), false)
		if err != nil {
			t.Fatal(err)
		}
		if compacted {
			if _, err := r.client.Compact(ctx, third.Rev); err != nil {
				t.Fatal(err)
			}
		}
		relist(t, ctx, s)
		w, err := s.Watch(ctx, "ns", watchFrom(first.Rev))
		if err != nil {
			t.Fatal(err)
		}
		ev := read(t, w)
		if compacted {
			if e := ev.next(); e.Type != watch.Error || !apierrors.IsResourceExpired(e.Err) {
				t.Fatalf("watch from a compacted revision in the gap: %s", describe(e))
			}
			continue
		}
		ev.expect(watch.Modified, "a", second.Rev)
		ev.expect(watch.Modified, "a", third.Rev)
	}
}

// The difference a relist hands to live watchers comes in revision order,
// so a watcher that resumes from the last revision it saw gets nothing
// twice.
func TestRelistDifferenceInRevisionOrder(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	ctx := testCtx(t)
	writer := r.store(t, "configmaps", StoreOptions{})
	for _, name := range []string{"d1", "d2", "m1", "m2", "m3"} {
		if _, err := writer.Create(ctx, configMap("ns", name, nil, nil), false); err != nil {
			t.Fatal(err)
		}
	}
	s := r.handDrivenStore(t, ctx, "configmaps")
	w, err := s.Watch(ctx, "ns", watchFrom(etcdRev(t, r.client)))
	if err != nil {
		t.Fatal(err)
	}
	remove := func(name string) {
		if _, err := writer.Delete(ctx, "ns", name, func(*Object) error { return nil }, false); err != nil {
			t.Fatal(err)
		}
	}
	remove("d1")
	for _, name := range []string{"m3", "m1", "m2"} {
		if _, err := writer.Update(ctx, "ns", name, setData("k", "v"), false); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"n2", "n1"} {
		if _, err := writer.Create(ctx, configMap("ns", name, nil, nil), false); err != nil {
			t.Fatal(err)
		}
	}
	remove("d2")
	relist(t, ctx, s)
	ev := read(t, w)
	var last int64
	seen := map[string]bool{}
	for i := 0; i < 7; i++ {
		e := ev.next()
		if e.Object.Rev < last {
			t.Fatalf("event %s after one at %d", describe(e), last)
		}
		last = e.Object.Rev
		seen[e.Object.Name()] = true
	}
	if len(seen) != 7 {
		t.Fatalf("relist difference covered %v", seen)
	}
	// Resuming from the last revision seen repeats nothing.
	resumed, err := s.Watch(ctx, "ns", watchFrom(last))
	if err != nil {
		t.Fatal(err)
	}
	sentinel, err := writer.Create(ctx, configMap("ns", "sentinel", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	relist(t, ctx, s)
	read(t, resumed).expect(watch.Added, "sentinel", sentinel.Rev)
}
