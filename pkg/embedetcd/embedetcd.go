// Package embedetcd runs a single-member etcd server inside the calling
// process, listening on loopback only: the registry's default storage, the
// etcd command the benchmarks run, and the etcd tests read back from.
package embedetcd

import (
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// Server is a running embedded etcd.
type Server struct {
	etcd *embed.Etcd
}

// Start runs etcd with its data under dir, its client listener on
// 127.0.0.1:port (0 picks a free port), and waits until it serves.
func Start(dir string, port int) (*Server, error) {
	cfg := embed.NewConfig()
	cfg.Name = "kubesplit"
	cfg.Dir = dir
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	// etcd logs every listener it closes at error level; its real failures
	// reach the caller through Err().
	cfg.LogLevel = "fatal"
	// The registry compacts on its own schedule (--etcd-compaction-interval).
	cfg.AutoCompactionRetention = "0"
	// The registry's watch caches learn they are current from progress
	// notifications when nothing changes; ask for them often.
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
	return &Server{etcd: e}, nil
}

// Endpoint is the server's client URL.
func (s *Server) Endpoint() string { return "http://" + s.etcd.Clients[0].Addr().String() }

// Err reports a failure of the running server.
func (s *Server) Err() <-chan error { return s.etcd.Err() }

// Close stops the server.
func (s *Server) Close() { s.etcd.Close() }
