package framework

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// StartReplica starts one more registry against r's etcd, as a second
// replica behind a load balancer would run. Its caches are filled from
// etcd as it stands now, so it knows nothing of history before its start.
func (r *Registry) StartReplica(t testing.TB, args ...string) *Registry {
	t.Helper()
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	all := append([]string{"--insecure-allow-unauthenticated", "--bind-address", "127.0.0.1:0",
		"--etcd-servers", r.Etcd.Endpoint, "--address-file", addrFile}, args...)
	cmd := exec.Command(filepath.Join(bin, "registry"), all...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replica := &Registry{Etcd: r.Etcd, cmd: cmd, logs: logs}
	t.Cleanup(func() { replica.stop(t) })
	replica.URL = waitForFile(t, addrFile, cmd, logs)
	replica.Kubeconfig = writeKubeconfig(t, dir, replica.URL)
	return replica
}
