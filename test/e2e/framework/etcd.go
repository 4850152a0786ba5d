package framework

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
)

// Etcd is an etcd server run by the test itself, so the test can read what
// the registry wrote, and check what it did not.
type Etcd struct {
	Endpoint string
	Client   *clientv3.Client
}

// StartEtcd runs an etcd for the duration of the test.
func StartEtcd(t testing.TB) *Etcd {
	t.Helper()
	endpoint, c := etcdtest.Start(t)
	return &Etcd{Endpoint: endpoint, Client: c}
}

// Snapshot returns every key under prefix with its mod revision, to compare
// before and after a request that must change nothing.
func (e *Etcd) Snapshot(t testing.TB, prefix string) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := e.Client.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = kv.ModRevision
	}
	return out
}
