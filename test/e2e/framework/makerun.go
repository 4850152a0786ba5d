package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// MakeRun is hack/run.sh, what `make run` starts, run by a test in a
// directory of its own.
type MakeRun struct {
	// Dir is the run directory (.run for make run).
	Dir string
	// URL is the aggregator's.
	URL  string
	proc *process
}

// makeRunBinaries are what hack/run.sh starts from $BIN.
var makeRunBinaries = []string{"aggregator", "registry", "authn", "authz", "admission", "kubesplit-certs"}

// StartMakeRun runs hack/run.sh with its state in dir, and returns once it
// says it is serving (the aggregator ready, the system namespaces made).
// It is stopped with SIGTERM, as Ctrl-C stops it, when the test ends.
func StartMakeRun(t testing.TB, dir string) *MakeRun {
	t.Helper()
	for _, name := range makeRunBinaries {
		if _, err := binary(name); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := binDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	base := freePortRun(t, 5)
	cmd := exec.Command("bash", filepath.Join(root, "hack", "run.sh"))
	cmd.Env = append(os.Environ(), "BIN="+bin, "KUBESPLIT_RUN_DIR="+dir, "KUBESPLIT_PORT="+strconv.Itoa(base))
	// TERM, not KILL, so that run.sh's trap stops the services it started.
	dieWithTest(cmd, syscall.SIGTERM)
	p := start(t, "hack/run.sh", cmd, func(p *process) {
		t.Logf("hack/run.sh:\n%s", p.logs)
		for _, name := range makeRunBinaries[:5] {
			b, _ := os.ReadFile(filepath.Join(dir, name+".log"))
			t.Logf("%s.log:\n%s", name, b)
		}
	})
	polltest.Until(t, 2*readyTimeout, "hack/run.sh to serve", func() bool {
		select {
		case <-p.exited:
			t.Fatalf("hack/run.sh exited (%v):\n%s", p.waitErr, p.logs)
		default:
		}
		return strings.Contains(p.logs.String(), "kubesplit is serving at")
	})
	return &MakeRun{Dir: dir, URL: fmt.Sprintf("https://127.0.0.1:%d", base), proc: p}
}

// Kubectl runs kubectl with the admin kubeconfig run.sh wrote.
func (r *MakeRun) Kubectl(t testing.TB, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectlPath(), append([]string{"--kubeconfig", filepath.Join(r.Dir, "kubeconfig")}, args...)...).CombinedOutput()
	return string(out), err
}
