package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// AggregatorBinDir is BinDir with the aggregator binary in it as well:
// built there once per test process when $KUBESPLIT_BIN is unset.
func AggregatorBinDir() (string, error) {
	return binDirWith("registry", "aggregator")
}

// Aggregator is an aggregator binary started by a test.
type Aggregator struct {
	// URL is https://127.0.0.1:<port>.
	URL string
	// CAFile is the CA its serving certificate chains to.
	CAFile string
	dir    string
	proc   *process
}

// StartAggregator starts the aggregator binary on a free loopback port with
// a certificate directory of the test's own, in front of the given
// arguments' upstreams, waits until it serves, and stops it with SIGTERM
// when the test ends.
func StartAggregator(t testing.TB, args ...string) *Aggregator {
	t.Helper()
	return startAggregator(t, 0, args)
}

// startAggregator is StartAggregator with an open-file limit (see
// launchLimited).
func startAggregator(t testing.TB, openFiles int, args []string) *Aggregator {
	t.Helper()
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	p := launchLimited(t, "aggregator", openFiles, append([]string{"--bind-address", "127.0.0.1:0", "--cert-dir", certs}, args...))
	return &Aggregator{URL: p.url, CAFile: filepath.Join(certs, "ca.crt"), dir: dir, proc: p}
}

// PID is the aggregator's process id, to read what it uses from /proc.
func (a *Aggregator) PID() int { return a.proc.PID() }

// Kubeconfig writes a kubeconfig for the aggregator, trusting its CA,
// with token as the bearer token (none when empty), and returns its path.
func (a *Aggregator) Kubeconfig(t testing.TB, name, token string) string {
	t.Helper()
	user := "{}"
	if token != "" {
		user = fmt.Sprintf("{token: %q}", token)
	}
	path := filepath.Join(a.dir, name+".kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: kubesplit, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: %s, user: %s}]
contexts: [{name: kubesplit, context: {cluster: kubesplit, user: %s}}]
current-context: kubesplit
`, a.URL, a.CAFile, name, user, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Kubectl runs the kubectl on the PATH (or $KUBECTL) with kubeconfig and
// a discovery cache of the test's own, and returns its output.
func (a *Aggregator) Kubectl(t testing.TB, kubeconfig, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(a.dir, "kubectl-cache")}
	cmd := exec.CommandContext(ctx, kubectlPath(), append(base, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Stop stops the aggregator with SIGTERM, before the test ends.
func (a *Aggregator) Stop(t testing.TB) {
	t.Helper()
	a.proc.stop(t)
}

// Stop stops the registry now, before the test ends, as an outage would.
func (r *Registry) Stop(t testing.TB) {
	t.Helper()
	r.proc.stop(t)
}
