// Package registry is kubesplit's registry service: the only owner of
// etcd, serving the Kubernetes REST API of every resource. Start runs it
// in-process, as the binary and the tests do.
package registry

import (
	"errors"
	"net"
	"time"
)

// Config is everything the registry needs to run.
type Config struct {
	// BindAddress is host:port to listen on; port 0 picks a free one.
	BindAddress string
	// EtcdServers are the client URLs of an external etcd cluster. Empty
	// means an etcd embedded in this process, keeping its data in DataDir.
	EtcdServers []string
	// DataDir holds the embedded etcd's data.
	DataDir string
	// CompactionInterval is how often etcd's history is compacted; 0 never.
	CompactionInterval time.Duration
	// EventTTL is how long Events live after their last update.
	EventTTL time.Duration
	// InsecureAllowUnauthenticated serves requests without any identity
	// check. Until the aggregator's signed identity exists it is the only
	// mode, and it is refused on anything but a loopback address.
	InsecureAllowUnauthenticated bool
	// DisableControllers leaves out the housekeeping controllers.
	DisableControllers bool
}

// Defaults fills in unset fields.
func (c *Config) Defaults() {
	if c.BindAddress == "" {
		c.BindAddress = "127.0.0.1:6444"
	}
	if c.EventTTL == 0 {
		c.EventTTL = time.Hour
	}
}

// Validate rejects configurations the registry cannot run safely.
func (c *Config) Validate() error {
	host, _, err := net.SplitHostPort(c.BindAddress)
	if err != nil {
		return err
	}
	if !c.InsecureAllowUnauthenticated {
		return errors.New("the registry has no authentication yet: start it with --insecure-allow-unauthenticated on a loopback address")
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("--insecure-allow-unauthenticated refuses to listen on " + host + ": use a loopback address")
	}
	if len(c.EtcdServers) == 0 && c.DataDir == "" {
		return errors.New("an embedded etcd needs --data-dir")
	}
	return nil
}
