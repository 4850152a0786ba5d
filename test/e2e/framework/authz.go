package framework

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	authzOnce     sync.Once
	authzBuildErr error
)

// AuthzBinDir is BinDir with the authz binary in it as well: built there
// once per test process when $KUBESPLIT_BIN is unset.
func AuthzBinDir() (string, error) {
	dir, err := BinDir()
	if err != nil {
		return "", err
	}
	authzOnce.Do(func() {
		if os.Getenv("KUBESPLIT_BIN") != "" {
			return
		}
		root, err := repoRoot()
		if err != nil {
			authzBuildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "authz"), "./services/authz")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			authzBuildErr = fmt.Errorf("build authz: %v\n%s", err, out)
		}
	})
	return dir, authzBuildErr
}

// FreeLoopbackAddress returns 127.0.0.1:<port> of a port that was free a
// moment ago. The aggregator must be told authz's address before authz can
// start (authz reaches the API through the aggregator), so one of them has
// to be given a port in advance; another process may take it in between,
// which is rare enough for tests.
func FreeLoopbackAddress(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// Authz is an authz binary started by a test.
type Authz struct {
	// URL is http://127.0.0.1:<port>.
	URL  string
	cmd  *exec.Cmd
	logs *bytes.Buffer
}

// StartAuthz starts the authz binary with the given arguments (which name
// its --bind-address, its kubeconfig and the aggregator's key), waits until
// it listens, and stops it with SIGTERM when the test ends. It does not
// wait for readiness: see WaitReady.
func StartAuthz(t testing.TB, args ...string) *Authz {
	t.Helper()
	bin, err := AuthzBinDir()
	if err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(filepath.Join(bin, "authz"), append([]string{"--address-file", addrFile}, args...)...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &Authz{cmd: cmd, logs: logs}
	t.Cleanup(func() { a.stop(t) })
	a.URL = waitForFile(t, addrFile, cmd, logs)
	return a
}

// WaitReady polls /readyz until it answers 200, for at most timeout.
func (a *Authz) WaitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		resp, err := http.Get(a.URL + "/readyz?verbose")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-deadline:
			t.Fatalf("authz not ready after %v:\n%s", timeout, a.logs)
		case <-tick.C:
		}
	}
}

func (a *Authz) stop(t testing.TB) {
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = a.cmd.Process.Kill()
		<-done
		t.Errorf("authz did not stop within 20s of SIGTERM")
	}
	if t.Failed() {
		t.Logf("authz logs:\n%s", a.logs.String())
	}
}
