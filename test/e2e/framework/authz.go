package framework

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// AuthzBinDir is BinDir with the authz binary in it as well: built there
// once per test process when $KUBESPLIT_BIN is unset.
func AuthzBinDir() (string, error) {
	return binDirWith("registry", "authz")
}

// FreeLoopbackAddress returns 127.0.0.1:<port> of a port that was free a
// moment ago (see freePortRun). The aggregator must be told authz's
// address before authz can start (authz reaches the API through the
// aggregator), so one of them has to be given a port in advance.
func FreeLoopbackAddress(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", freePortRun(t, 1))
}

// Authz is an authz binary started by a test.
type Authz struct {
	// URL is http://127.0.0.1:<port>.
	URL  string
	proc *process
}

// StartAuthz starts the authz binary with the given arguments (which name
// its --bind-address, its kubeconfig and the aggregator's key), waits until
// it listens, and stops it with SIGTERM when the test ends. It does not
// wait for readiness: see WaitReady.
func StartAuthz(t testing.TB, args ...string) *Authz {
	t.Helper()
	p := launch(t, "authz", args)
	return &Authz{URL: p.url, proc: p}
}

// Stop stops authz (SIGTERM) and waits for it to exit, so that a test can
// start another authz, with other flags, on the same address: the
// aggregator follows whichever answers there.
func (a *Authz) Stop(t testing.TB) {
	t.Helper()
	a.proc.stop(t)
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
			t.Fatalf("authz not ready after %v:\n%s", timeout, a.proc.logs)
		case <-tick.C:
		}
	}
}
