package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// KubeE2ETest returns the path of kube's e2e test binary (e2e.test,
// KubeVersion) in KubeBinDir, which hack/kube-binaries.sh builds only when
// asked (--e2e), since it takes minutes more.
func KubeE2ETest() (string, error) {
	dir, err := KubeBinDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "e2e.test")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%v (build it with hack/kube-binaries.sh --e2e)", err)
	}
	return path, nil
}

// RunKubeE2E runs kube's e2e test binary with args, its output going to
// logFile, and kills it after timeout or when the test binary dies. It
// returns the run's error: a test that failed makes e2e.test exit non-zero,
// so the caller reads the report it asked for to tell that from a run that
// did not happen.
func RunKubeE2E(t testing.TB, logFile string, timeout time.Duration, args ...string) error {
	t.Helper()
	path, err := KubeE2ETest()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// SIGTERM first: ginkgo then ends the running spec's cleanup and still
	// writes its report.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	dieWithTest(cmd, syscall.SIGKILL)
	return cmd.Run()
}
