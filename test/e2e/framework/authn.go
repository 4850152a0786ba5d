package framework

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	authnOnce     sync.Once
	authnBuildErr error
)

// AuthnBinDir is BinDir with the authn binary in it as well: built there
// once per test process when $KUBESPLIT_BIN is unset.
func AuthnBinDir() (string, error) {
	dir, err := BinDir()
	if err != nil {
		return "", err
	}
	authnOnce.Do(func() {
		if os.Getenv("KUBESPLIT_BIN") != "" {
			return
		}
		root, err := repoRoot()
		if err != nil {
			authnBuildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "authn"), "./services/authn")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			authnBuildErr = fmt.Errorf("build authn: %v\n%s", err, out)
		}
	})
	return dir, authnBuildErr
}

// Authn is an authn binary for a test. Its port is reserved before it
// starts, because the aggregator needs authn's URL and authn needs the
// aggregator's (its kubeconfig points there): ReserveAuthn, start the
// aggregator with URL, then Start.
type Authn struct {
	// URL is http://127.0.0.1:<port>.
	URL  string
	ln   *net.TCPListener
	cmd  *exec.Cmd
	logs *bytes.Buffer
}

// ReserveAuthn opens a loopback listener on a free port for an authn
// binary to serve on once started, and closes it when the test ends.
func ReserveAuthn(t testing.TB) *Authn {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	a := &Authn{URL: "http://" + ln.Addr().String(), ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	return a
}

// Start runs the authn binary on the reserved listener (handed over as
// --listen-fd) with args, and stops it with SIGTERM when the test ends.
// Requests sent before it serves wait in the listener's backlog.
func (a *Authn) Start(t testing.TB, args ...string) {
	t.Helper()
	bin, err := AuthnBinDir()
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.ln.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	all := append([]string{"--listen-fd", "3", "--cert-dir", filepath.Join(dir, "certs"), "--address-file", addrFile}, args...)
	a.cmd = exec.Command(filepath.Join(bin, "authn"), all...)
	a.cmd.ExtraFiles = []*os.File{f}
	a.logs = &bytes.Buffer{}
	a.cmd.Stdout, a.cmd.Stderr = a.logs, a.logs
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.stop(t) })
	waitForFile(t, addrFile, a.cmd, a.logs)
}

func (a *Authn) stop(t testing.TB) {
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = a.cmd.Process.Kill()
		<-done
		t.Errorf("authn did not stop within 20s of SIGTERM")
	}
	if t.Failed() {
		t.Logf("authn logs:\n%s", a.logs.String())
	}
}
