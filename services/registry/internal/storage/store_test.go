package storage

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// setData returns an UpdateFunc that sets data[key] = value.
func setData(key, value string) UpdateFunc {
	return func(cur *Object) (*unstructured.Unstructured, error) {
		next := cur.Decode()
		if err := unstructured.SetNestedField(next.Object, value, "data", key); err != nil {
			return nil, err
		}
		return next, nil
	}
}

func dataOf(o *Object, key string) string {
	v, _, _ := unstructured.NestedString(o.Decode().Object, "data", key)
	return v
}

func TestCreateGetUpdateDeleteRoundTrip(t *testing.T) {
	r, s, ctx := configMaps(t)
	key := s.info.Key("ns", "a")

	created, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false)
	if err != nil {
		t.Fatal(err)
	}
	if created.Rev != modRev(t, r.client, key) || created.Decode().GetResourceVersion() != itoa(created.Rev) {
		t.Fatalf("created at %d (rv %q), etcd mod revision %d", created.Rev, created.Decode().GetResourceVersion(), modRev(t, r.client, key))
	}
	raw, err := r.client.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if stored, _ := decode(raw.Kvs[0].Value, 0); stored.Decode().GetResourceVersion() != "0" {
		// decode stamps the revision it is given; anything else came from etcd.
		t.Fatalf("etcd holds a resourceVersion: %s", raw.Kvs[0].Value)
	}

	got, err := s.Get(ctx, "ns", "a", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rev != created.Rev || dataOf(got, "k") != "1" {
		t.Fatalf("get = rev %d data %q, want rev %d data 1", got.Rev, dataOf(got, "k"), created.Rev)
	}

	updated, err := s.Update(ctx, "ns", "a", setData("k", "2"), false)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Rev <= created.Rev || updated.Rev != modRev(t, r.client, key) || updated.Decode().GetResourceVersion() != itoa(updated.Rev) {
		t.Fatalf("updated at %d, created at %d, etcd mod revision %d", updated.Rev, created.Rev, modRev(t, r.client, key))
	}
	if got, _ := s.Get(ctx, "ns", "a", ReadOptions{}); got.Rev != updated.Rev || dataOf(got, "k") != "2" {
		t.Fatalf("get after update = rev %d data %q", got.Rev, dataOf(got, "k"))
	}

	gone, err := s.Delete(ctx, "ns", "a", func(*Object) error { return nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	if gone.Rev != etcdRev(t, r.client) || dataOf(gone, "k") != "2" {
		t.Fatalf("delete returned rev %d data %q; etcd at %d", gone.Rev, dataOf(gone, "k"), etcdRev(t, r.client))
	}
	if modRev(t, r.client, key) != 0 {
		t.Fatal("key still in etcd after delete")
	}
	if _, err := s.Get(ctx, "ns", "a", ReadOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
}

func TestCreateExistingIsAlreadyExists(t *testing.T) {
	r, s, ctx := configMaps(t)
	first, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false)
	if err != nil {
		t.Fatal(err)
	}
	before := etcdRev(t, r.client)
	for _, dry := range []bool{false, true} {
		if _, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "2"}), dry); !apierrors.IsAlreadyExists(err) {
			t.Fatalf("second create (dryRun %v): %v", dry, err)
		}
	}
	if etcdRev(t, r.client) != before || modRev(t, r.client, s.info.Key("ns", "a")) != first.Rev {
		t.Fatal("a refused create wrote to etcd")
	}
}

func TestMissingObjectIsNotFound(t *testing.T) {
	r, s, ctx := configMaps(t)
	before := etcdRev(t, r.client)
	if _, err := s.Get(ctx, "ns", "nope", ReadOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get: %v", err)
	}
	if _, err := s.Update(ctx, "ns", "nope", setData("k", "v"), false); !apierrors.IsNotFound(err) {
		t.Errorf("update: %v", err)
	}
	if _, err := s.Delete(ctx, "ns", "nope", func(*Object) error { return nil }, false); !apierrors.IsNotFound(err) {
		t.Errorf("delete: %v", err)
	}
	if etcdRev(t, r.client) != before {
		t.Error("a write to a missing object changed etcd")
	}
}

// A write whose precondition names a resourceVersion someone else has
// already replaced is a Conflict, and leaves the newer write in place.
func TestStaleUpdateIsConflict(t *testing.T) {
	r, s, ctx := configMaps(t)
	created, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Update(ctx, "ns", "a", setData("k", "other"), false)
	if err != nil {
		t.Fatal(err)
	}
	stale := func(cur *Object) (*unstructured.Unstructured, error) {
		if cur.Rev != created.Rev {
			return nil, apierrors.NewConflict(s.groupResource(), "a", fmt.Errorf("stale"))
		}
		return setData("k", "mine")(cur)
	}
	if _, err := s.Update(ctx, "ns", "a", stale, false); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v", err)
	}
	if got := modRev(t, r.client, s.info.Key("ns", "a")); got != other.Rev {
		t.Fatalf("mod revision %d after a conflict, want %d", got, other.Rev)
	}
}

// Two writers racing on one key: every update lands exactly once.
func TestConcurrentUpdatesApplyExactlyOnce(t *testing.T) {
	endpoint := startEtcd(t)
	a, b := newReplica(t, endpoint), newReplica(t, endpoint)
	sa, sb := a.store(t, "configmaps", StoreOptions{}), b.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	if _, err := sa.Create(ctx, configMap("ns", "counter", nil, map[string]any{"n": "0"}), false); err != nil {
		t.Fatal(err)
	}
	increment := func(cur *Object) (*unstructured.Unstructured, error) {
		n, err := strconv.Atoi(dataOf(cur, "n"))
		if err != nil {
			return nil, err
		}
		return setData("n", strconv.Itoa(n+1))(cur)
	}
	const perWriter = 25
	var wg sync.WaitGroup
	revs := make(chan int64, 2*perWriter)
	errs := make(chan error, 2*perWriter)
	for _, s := range []*Store{sa, sb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				obj, err := s.Update(ctx, "ns", "counter", increment, false)
				if err != nil {
					errs <- err
					return
				}
				revs <- obj.Rev
			}
		}()
	}
	wg.Wait()
	close(revs)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for rev := range revs {
		if seen[rev] {
			t.Fatalf("two updates report revision %d", rev)
		}
		seen[rev] = true
	}
	for _, s := range []*Store{sa, sb} {
		got, err := s.Get(ctx, "ns", "counter", ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if dataOf(got, "n") != strconv.Itoa(2*perWriter) {
			t.Fatalf("counter = %s after %d increments", dataOf(got, "n"), 2*perWriter)
		}
	}
}

func TestNoOpUpdateWritesNothing(t *testing.T) {
	r, s, ctx := configMaps(t)
	created, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false)
	if err != nil {
		t.Fatal(err)
	}
	before := etcdRev(t, r.client)
	same, err := s.Update(ctx, "ns", "a", setData("k", "1"), false)
	if err != nil {
		t.Fatal(err)
	}
	if same.Rev != created.Rev || etcdRev(t, r.client) != before {
		t.Fatalf("no-op update moved the revision: object %d -> %d, etcd %d -> %d", created.Rev, same.Rev, before, etcdRev(t, r.client))
	}
}

// A replica whose cache lags must not take a write for a no-op because
// its stale copy already looks like the result: the write has to land.
func TestUpdateMatchingStaleCacheStillWrites(t *testing.T) {
	endpoint := startEtcd(t)
	a, b := newReplica(t, endpoint), newReplica(t, endpoint)
	sa := a.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	if _, err := sa.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false); err != nil {
		t.Fatal(err)
	}
	// b's cache is filled and then frozen, as a cache that has not yet
	// seen a's next write.
	frozenCtx, freeze := contextWithCancel(t)
	sb := b.idleStore(t, "configmaps")
	go sb.cache.run(frozenCtx)
	waitReady(t, sb)
	freeze()
	if _, err := sa.Update(ctx, "ns", "a", setData("k", "2"), false); err != nil {
		t.Fatal(err)
	}
	got, err := sb.Update(ctx, "ns", "a", setData("k", "1"), false)
	if err != nil {
		t.Fatal(err)
	}
	now, err := sa.Get(ctx, "ns", "a", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dataOf(now, "k") != "1" || got.Rev != now.Rev {
		t.Fatalf("after setting k=1 through a lagging replica, etcd has k=%s at %d (update returned %d)", dataOf(now, "k"), now.Rev, got.Rev)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	r, s, ctx := configMaps(t)
	if _, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false); err != nil {
		t.Fatal(err)
	}
	before := etcdRev(t, r.client)
	if _, err := s.Create(ctx, configMap("ns", "b", nil, nil), true); err != nil {
		t.Fatal(err)
	}
	out, err := s.Update(ctx, "ns", "a", setData("k", "2"), true)
	if err != nil || dataOf(out, "k") != "2" {
		t.Fatalf("dry-run update = %v, %v", out, err)
	}
	if _, err := s.Delete(ctx, "ns", "a", func(*Object) error { return nil }, true); err != nil {
		t.Fatal(err)
	}
	if etcdRev(t, r.client) != before {
		t.Fatal("a dry run wrote to etcd")
	}
}

// A dry-run create answers as the real one would, even through a replica
// whose cache has not yet seen the object.
func TestDryRunCreateSeesWritesElsewhere(t *testing.T) {
	endpoint := startEtcd(t)
	a, b := newReplica(t, endpoint), newReplica(t, endpoint)
	sa := a.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	// b's cache was filled before a's write and has seen nothing since.
	sb := b.handDrivenStore(t, ctx, "configmaps")
	if _, err := sa.Create(ctx, configMap("ns", "a", nil, nil), false); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Create(ctx, configMap("ns", "a", nil, nil), true); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("dry-run create of an existing object: %v", err)
	}
	if _, err := sb.Create(ctx, configMap("ns", "b", nil, nil), true); err != nil {
		t.Fatalf("dry-run create of a new object: %v", err)
	}
}
