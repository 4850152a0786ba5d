package storage

import (
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// TestStorageVersion serves one resource at two versions over the same
// keys, as a custom resource with two served versions is: etcd holds every
// object at the storage version, each store reads and watches it at its
// own.
func TestStorageVersion(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	ctx := testCtx(t)
	info := func(version string) *resource.Info {
		return &resource.Info{Group: "example.com", Version: version, Resource: "gadgets", Kind: "Gadget"}
	}
	v1 := r.backend.NewClosableStore(info("v1"), StoreOptions{StorageVersion: "example.com/v1"})
	beta := r.backend.NewClosableStore(info("v1beta1"), StoreOptions{StorageVersion: "example.com/v1"})
	waitReady(t, v1)
	waitReady(t, beta)
	obj := configMap("", "g", nil, nil)
	obj.SetAPIVersion("example.com/v1beta1")
	obj.SetKind("Gadget")
	created, err := beta.Create(ctx, obj, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := created.Decode().GetAPIVersion(); got != "example.com/v1beta1" {
		t.Errorf("created object served as %s", got)
	}
	raw, err := r.client.Get(ctx, info("v1").Key("", "g"))
	if err != nil || len(raw.Kvs) != 1 {
		t.Fatal(err)
	}
	if stored, _ := decode(raw.Kvs[0].Value, 0); stored.Decode().GetAPIVersion() != "example.com/v1" {
		t.Errorf("etcd holds %s, want the storage version", raw.Kvs[0].Value)
	}
	for _, c := range []struct {
		s    *Store
		want string
	}{{v1, "example.com/v1"}, {beta, "example.com/v1beta1"}} {
		got, err := c.s.Get(ctx, "", "g", ReadOptions{})
		if err != nil || got.Decode().GetAPIVersion() != c.want {
			t.Errorf("get at %s: %v %v", c.want, err, got)
		}
		// From etcd, not the cache: a watch from before the cache began.
		w := watchEtcd(ctx, r.client, filter{prefix: info("v1").KeyPrefix(), match: func(*Object) bool { return true }}, 1, c.s.versions)
		select {
		case ev := <-w.Events:
			if ev.Type != watch.Added || ev.Object.Decode().GetAPIVersion() != c.want {
				t.Errorf("etcd watch at %s: %s %s", c.want, ev.Type, ev.Object.JSON)
			}
		case <-ctx.Done():
			t.Fatal("no event")
		}
		w.Stop()
	}
	// Close ends a store's watches.
	w, err := beta.Watch(ctx, "", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	beta.Close()
	for open := true; open; {
		select {
		case _, open = <-w.Events:
		case <-ctx.Done():
			t.Fatal("the watch outlived its store's Close")
		}
	}
}
