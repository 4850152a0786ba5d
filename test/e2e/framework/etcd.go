package framework

import (
	"context"
	"net/url"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
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
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	u := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{u}, []url.URL{u}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{u}, []url.URL{u}
	cfg.InitialCluster = cfg.Name + "=" + u.String()
	cfg.LogLevel = "fatal"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("etcd not ready")
	}
	endpoint := "http://" + e.Clients[0].Addr().String()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
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
