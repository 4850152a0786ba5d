package main

import (
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

// etcdTLSFiles are kube-apiserver's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile: how the registry speaks TLS to an etcd cluster that
// requires it (deploy/ runs etcd with client certificate authentication).
type etcdTLSFiles struct {
	ca, cert, key string
}

// config is the TLS configuration the files make, nil when none is given
// (etcd over plain http).
func (f etcdTLSFiles) config() (*tls.Config, error) {
	if f.ca == "" && f.cert == "" && f.key == "" {
		return nil, nil
	}
	if (f.cert == "") != (f.key == "") {
		return nil, errors.New("--etcd-certfile and --etcd-keyfile go together")
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pool, err := serve.CertPool(f.ca)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		c.RootCAs = pool
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
