package framework

import (
	"path/filepath"
	"testing"
)

// StartFused starts the fused binary (bin/kubesplit: the whole chain in
// one process) on a free loopback port with a certificate directory of the
// test's own and args, waits until it serves, and stops it with SIGTERM
// when the test ends. It serves as an aggregator does, so the result is
// used as one.
func StartFused(t testing.TB, args ...string) *Aggregator {
	t.Helper()
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	p := launch(t, "kubesplit", append([]string{"--bind-address", "127.0.0.1:0", "--cert-dir", certs, "--data-dir", filepath.Join(dir, "etcd")}, args...))
	return &Aggregator{URL: p.url, CAFile: filepath.Join(certs, "ca.crt"), dir: dir, proc: p}
}
