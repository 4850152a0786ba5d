package storage

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// testTimeout bounds every wait in these tests; nothing should come close.
const testTimeout = 20 * time.Second

// startEtcd runs an embedded etcd for one test and returns its endpoint;
// each replica connects to it with a client of its own.
func startEtcd(t *testing.T) string {
	t.Helper()
	endpoint, _ := etcdtest.Start(t)
	return endpoint
}

// testCtx is a context that ends with the test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// builtin returns the built-in resource named plural in the core group.
func builtin(t *testing.T, plural string) *resource.Info {
	t.Helper()
	for _, info := range resource.Builtins() {
		if info.Group == "" && info.Resource == plural {
			return info
		}
	}
	t.Fatalf("no built-in resource %q", plural)
	return nil
}

// replica is one registry's view of etcd: its own client, backend and
// stores, as a second registry process would have.
type replica struct {
	client  *clientv3.Client
	backend *Backend
}

func newReplica(t *testing.T, endpoint string) *replica {
	client := etcdtest.Connect(t, endpoint)
	return &replica{client: client, backend: NewBackend(testCtx(t), client)}
}

// store starts the store of a core resource and waits for its cache.
func (r *replica) store(t *testing.T, plural string, opts StoreOptions) *Store {
	t.Helper()
	s := r.backend.NewStore(builtin(t, plural), opts)
	waitReady(t, s)
	return s
}

// configMaps starts etcd and one replica with its config map store: the
// setting of most tests here.
func configMaps(t *testing.T) (*replica, *Store, context.Context) {
	t.Helper()
	r := newReplica(t, startEtcd(t))
	return r, r.store(t, "configmaps", StoreOptions{}), testCtx(t)
}

// idleStore builds the store of a core resource with a cache that nothing
// runs yet, so that the test decides what it sees and when.
func (r *replica) idleStore(t *testing.T, plural string) *Store {
	t.Helper()
	info := builtin(t, plural)
	return &Store{info: info, client: r.client, cache: newCache(r.client, info.KeyPrefix()), revs: r.backend.revs}
}

// storeWithHistory builds a store whose cache keeps only size events, so
// that a test can make a watch reach back past it.
func (r *replica) storeWithHistory(t *testing.T, plural string, size int) *Store {
	t.Helper()
	s := r.idleStore(t, plural)
	s.cache.history = newHistory(size)
	go s.cache.run(r.backend.ctx)
	waitReady(t, s)
	return s
}

// handDrivenStore builds a store whose cache is filled from etcd once and
// then sees nothing more until the test calls relist, as a cache whose
// watch broke.
func (r *replica) handDrivenStore(t *testing.T, ctx context.Context, plural string) *Store {
	t.Helper()
	s := r.idleStore(t, plural)
	relist(t, ctx, s)
	close(s.cache.ready)
	return s
}

// relist refills the cache of s from etcd, as its run loop does after its
// watch broke.
func relist(t *testing.T, ctx context.Context, s *Store) {
	t.Helper()
	if _, err := s.cache.relist(ctx); err != nil {
		t.Fatal(err)
	}
}

func waitReady(t *testing.T, s *Store) {
	t.Helper()
	select {
	case <-s.cache.ready:
	case <-time.After(testTimeout):
		t.Fatal("cache never filled")
	}
}

// configMap is a config map in namespace ns with the given data.
func configMap(ns, name string, labels map[string]string, data map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name},
	}}
	if labels != nil {
		u.SetLabels(labels)
	}
	if data != nil {
		u.Object["data"] = data
	}
	return u
}

// etcdRev returns etcd's current revision.
func etcdRev(t *testing.T, c *clientv3.Client) int64 {
	t.Helper()
	resp, err := c.Get(testCtx(t), "/registry/.probe", clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// modRev returns the mod revision of key in etcd, 0 when absent.
func modRev(t *testing.T, c *clientv3.Client, key string) int64 {
	t.Helper()
	resp, err := c.Get(testCtx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return 0
	}
	return resp.Kvs[0].ModRevision
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}

func clientLeaseID(id int64) clientv3.LeaseID { return clientv3.LeaseID(id) }
