package storage

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// Objects of a store with a TTL are written with an etcd lease, so etcd
// deletes them itself; the lease is shared by a burst of writes.
func TestTTLStoreWritesWithLease(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	const ttl = time.Hour
	events := r.store(t, "events", StoreOptions{TTL: ttl})
	plain := r.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	newEvent := func(name string) {
		t.Helper()
		ev := configMap("ns", name, nil, nil)
		ev.SetKind("Event")
		if _, err := events.Create(ctx, ev, false); err != nil {
			t.Fatal(err)
		}
	}
	lease := func(key string) int64 {
		t.Helper()
		resp, err := r.client.Get(ctx, key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("get %s: %v", key, err)
		}
		return resp.Kvs[0].Lease
	}
	newEvent("a")
	newEvent("b")
	id := lease(events.info.Key("ns", "a"))
	if id == 0 {
		t.Fatal("event written without a lease")
	}
	if lease(events.info.Key("ns", "b")) != id {
		t.Fatal("a burst of events did not share its lease")
	}
	if _, err := events.Update(ctx, "ns", "a", setData("k", "v"), false); err != nil {
		t.Fatal(err)
	}
	if lease(events.info.Key("ns", "a")) == 0 {
		t.Fatal("update dropped the event's lease")
	}
	ttlResp, err := r.client.TimeToLive(ctx, clientLeaseID(id))
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Duration(ttlResp.TTL) * time.Second; got < ttl {
		t.Fatalf("lease lives %v, less than the TTL %v", got, ttl)
	}
	if _, err := plain.Create(ctx, configMap("ns", "cm", nil, nil), false); err != nil {
		t.Fatal(err)
	}
	if lease(plain.info.Key("ns", "cm")) != 0 {
		t.Fatal("an object of a store without TTL has a lease")
	}

	// When the lease runs out, etcd deletes the objects and the cache
	// and its watchers see it.
	w, err := events.Watch(ctx, "ns", watchFrom(etcdRev(t, r.client)))
	if err != nil {
		t.Fatal(err)
	}
	ev := read(t, w)
	if _, err := r.client.Revoke(ctx, clientLeaseID(id)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if e := ev.next(); e.Type != watch.Deleted {
			t.Fatalf("after the lease ended: %s", describe(e))
		}
	}
	if _, err := events.Get(ctx, "ns", "a", ReadOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get of an expired event: %v", err)
	}
}
