package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEtcdTLSFiles: no files is plain etcd; a certificate needs its key;
// a CA file that holds no certificate is refused by name.
func TestEtcdTLSFiles(t *testing.T) {
	if c, err := (etcdTLSFiles{}).config(); c != nil || err != nil {
		t.Errorf("no files: %v, %v; want no TLS", c, err)
	}
	if _, err := (etcdTLSFiles{cert: "c.crt"}).config(); err == nil || !strings.Contains(err.Error(), "--etcd-keyfile") {
		t.Errorf("a certificate without its key: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(empty, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (etcdTLSFiles{ca: empty}).config(); err == nil || !strings.Contains(err.Error(), "--etcd-cafile") {
		t.Errorf("a CA file without a certificate: %v", err)
	}
}
