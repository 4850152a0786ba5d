// Package etcdtest starts an embedded etcd for one test, so that every test
// that needs a real etcd gets a fresh one in a temporary directory, on a
// socket of its own, shut down when the test ends.
package etcdtest

import (
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd"
)

// Start runs an embedded etcd for the duration of t and returns its client
// endpoint and a client connected to it; both are closed when t ends.
func Start(t testing.TB) (endpoint string, client *clientv3.Client) {
	t.Helper()
	e, err := embedetcd.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e.Endpoint(), Connect(t, e.Endpoint())
}

// Connect returns another client of the etcd at endpoint, closed when t
// ends: a test that plays several registry replicas gives each its own.
func Connect(t testing.TB, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := embedetcd.NewClient([]string{endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
