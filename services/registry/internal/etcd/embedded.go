// Package etcd connects the registry to etcd: an external cluster named by
// --etcd-servers, or an etcd embedded in the registry's own process so that
// one command gives a working server.
package etcd

import (
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// Embedded is an etcd server running inside this process.
type Embedded struct {
	etcd *embed.Etcd
}

// StartEmbedded starts a single-member etcd that keeps its data under dir
// and listens on loopback ports of its own choosing.
func StartEmbedded(dir string) (*Embedded, error) {
	cfg := embed.NewConfig()
	cfg.Name = "kubesplit"
	cfg.Dir = dir
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{loopback}
	cfg.AdvertiseClientUrls = []url.URL{loopback}
	cfg.ListenPeerUrls = []url.URL{loopback}
	cfg.AdvertisePeerUrls = []url.URL{loopback}
	cfg.InitialCluster = cfg.Name + "=" + loopback.String()
	// etcd logs every listener it closes at error level; its real failures
	// reach us through Err().
	cfg.LogLevel = "fatal"
	// The registry compacts on its own schedule (--etcd-compaction-interval).
	cfg.AutoCompactionRetention = "0"
	// The registry's watch caches rely on progress notifications to know
	// they are current when nothing changes.
	cfg.WatchProgressNotifyInterval = 5 * time.Second
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd failed: %w", err)
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, fmt.Errorf("embedded etcd not ready after 60s")
	}
	return &Embedded{etcd: e}, nil
}

// Endpoint is the client URL of the embedded server.
func (e *Embedded) Endpoint() string {
	return "http://" + e.etcd.Clients[0].Addr().String()
}

// Close stops the server.
func (e *Embedded) Close() { e.etcd.Close() }
