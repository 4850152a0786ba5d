package framework

import (
	"net"
	"path/filepath"
	"testing"
)

// AuthnBinDir is BinDir with the authn binary in it as well: built there
// once per test process when $KUBESPLIT_BIN is unset.
func AuthnBinDir() (string, error) {
	return binDirWith("registry", "authn")
}

// Authn is an authn binary for a test. Its port is reserved before it
// starts, because the aggregator needs authn's URL and authn needs the
// aggregator's (its kubeconfig points there): ReserveAuthn, start the
// aggregator with URL, then Start.
type Authn struct {
	// URL is http://127.0.0.1:<port>.
	URL  string
	ln   *net.TCPListener
	proc *process
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
	f, err := a.ln.File()
	if err != nil {
		t.Fatal(err)
	}
	// The child has its own copy of the descriptor once started.
	defer f.Close()
	certs := filepath.Join(t.TempDir(), "certs")
	a.proc = launch(t, "authn", append([]string{"--listen-fd", "3", "--cert-dir", certs}, args...), f)
}
