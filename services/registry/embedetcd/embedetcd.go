// Package embedetcd runs a single-member etcd server inside the calling
// process, reachable only through a unix socket in a directory of its
// own that only the process's user may enter: the registry's default
// storage, the etcd command the benchmarks run, and the etcd tests read
// back from.
package embedetcd

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// socketName is the client socket's name in the server's private directory.
const socketName = "etcd.sock"

// Server is a running embedded etcd.
type Server struct {
	etcd *embed.Etcd
	// socketDir holds the client socket; removed by Close.
	socketDir string
}

// Start runs etcd with its data under dir and waits until it serves.
//
// etcd has no authentication of its own here, so whoever reaches its
// client API reads and writes everything, Secrets included. A loopback
// TCP port is open to every user of the machine; a unix socket in a
// directory of mode 0700 is open only to this process's user (who can
// read the data directory anyway). The directory is made afresh by
// os.MkdirTemp, never one that someone else may have made first, and
// under the system's temporary directory rather than beside the data, to
// keep the socket's path within the 108 bytes a unix address allows.
//
// A single member needs no peer listener: nobody joins it, and raft never
// dials its own member. It listens on none, and keeps advertising the
// unreachable http://127.0.0.1:0 its data directories have always
// recorded, so that existing ones start as before.
func Start(dir string) (*Server, error) {
	socketDir, err := os.MkdirTemp("", "kubesplit-etcd-")
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: socket directory: %w", err)
	}
	e, err := start(dir, filepath.Join(socketDir, socketName))
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(socketDir))
	}
	return &Server{etcd: e, socketDir: socketDir}, nil
}

func start(dir, socket string) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = "kubesplit"
	cfg.Dir = dir
	client := url.URL{Scheme: "unix", Path: socket}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = nil, []url.URL{peer}
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
	return e, nil
}

// Endpoint is the server's client URL, unix:///<dir>/etcd.sock, which
// etcd's client (and so the registry's --etcd-servers) dials as it is.
func (s *Server) Endpoint() string {
	return (&url.URL{Scheme: "unix", Path: filepath.Join(s.socketDir, socketName)}).String()
}

// Err reports a failure of the running server.
func (s *Server) Err() <-chan error { return s.etcd.Err() }

// Close stops the server and removes its socket's directory.
func (s *Server) Close() {
	s.etcd.Close()
	_ = os.RemoveAll(s.socketDir)
}
