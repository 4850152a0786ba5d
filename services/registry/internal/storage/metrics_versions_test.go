package storage

import (
	"strings"
	"testing"
)

// A resource served by several stores at once (a custom resource's
// versions, all over the same keys, or a store and the one replacing it)
// is counted once: a repeated series would make every scrape fail.
func TestStorageObjectsOncePerResource(t *testing.T) {
	r, cms, ctx, reg := measuredConfigMaps(t, 1)
	// A consistent read: cms's cache holds the object from here on.
	if _, err := cms.Get(ctx, "ns", "c0", ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	v1 := r.backend.NewClosableStore(builtin(t, "configmaps"), StoreOptions{})
	v2 := r.backend.NewClosableStore(builtin(t, "configmaps"), StoreOptions{})
	waitReady(t, v1)
	waitReady(t, v2)
	if got := gathered(t, reg, "apiserver_storage_objects"); got != "{resource=\"configmaps\"} 1\n" {
		t.Fatalf("apiserver_storage_objects with three stores of one resource:\n%s", got)
	}
	v1.Close()
	v2.Close()
	if got := gathered(t, reg, "apiserver_storage_objects"); got != "{resource=\"configmaps\"} 1\n" {
		t.Fatalf("apiserver_storage_objects after closing two of them:\n%s", got)
	}
}

// A store whose cache has not filled reports -1, as kube does for a count
// it could not fetch, unless another store of the resource can count.
func TestStorageObjectsUnfilledCache(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	ctx, cancel := contextWithCancel(t)
	cancel() // the cache never starts
	idle := NewBackend(ctx, r.client)
	reg := registered(t, idle)
	idle.NewStore(builtin(t, "secrets"), StoreOptions{})
	if got := gathered(t, reg, "apiserver_storage_objects"); !strings.Contains(got, "{resource=\"secrets\"} -1\n") {
		t.Fatalf("apiserver_storage_objects before the cache filled:\n%s", got)
	}
}
