package framework

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// readyTimeout bounds the wait for a binary to write its address file;
	// generous because a loaded CI machine may be slow to start it.
	readyTimeout = 60 * time.Second
	// stopTimeout bounds the wait for a clean exit after SIGTERM.
	stopTimeout = 20 * time.Second
)

// PID is the binary's process id.
func (p *process) PID() int { return p.cmd.Process.Pid }

// process is one service binary started by a test.
type process struct {
	name string
	// url is what the binary wrote to its --address-file.
	url  string
	cmd  *exec.Cmd
	logs *logBuffer
	// exited is closed once the binary has exited and its output is
	// drained; waitErr is set before.
	exited   chan struct{}
	waitErr  error
	stopOnce sync.Once
}

// launch starts the named service binary with --address-file and args (and
// extra as its descriptors 3, 4, ...), waits until it has written its
// address, and stops it with SIGTERM when the test ends, showing its logs
// if the test failed.
func launch(t testing.TB, name string, args []string, extra ...*os.File) *process {
	t.Helper()
	return launchLimited(t, name, 0, args, extra...)
}

// launchLimited is launch with the binary's open-file limit (soft and
// hard) set to openFiles when positive: a flood test fills a small one
// cheaply. The shell sets it and execs the binary, which keeps its PID.
func launchLimited(t testing.TB, name string, openFiles int, args []string, extra ...*os.File) *process {
	t.Helper()
	path, err := binary(name)
	if err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "addr")
	args = append([]string{path, "--address-file", addrFile}, args...)
	if openFiles > 0 {
		args = append([]string{"/bin/sh", "-c", `ulimit -n "$0" && exec "$@"`, strconv.Itoa(openFiles)}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.ExtraFiles = extra
	p := start(t, name, cmd, func(p *process) { t.Logf("%s logs:\n%s", name, p.logs) })
	p.url = p.waitForFile(t, addrFile)
	return p
}

// start runs cmd as the process name, its output kept as its logs, and
// stops it when the test ends, calling onFailure first if the test failed.
func start(t testing.TB, name string, cmd *exec.Cmd, onFailure func(p *process)) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, logs: &logBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	dieWithTest(cmd, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	// Waiting from the start, not only at stop, is what lets waitForFile
	// notice a binary that died instead of waiting out its deadline.
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			onFailure(p)
		}
	})
	return p
}

// stop ends the binary with SIGTERM, as a deploy would, and kills it if it
// does not exit in time. Later calls do nothing.
func (p *process) stop(t testing.TB) {
	p.stopOnce.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		timer := time.NewTimer(stopTimeout)
		defer timer.Stop()
		select {
		case <-p.exited:
		case <-timer.C:
			_ = p.cmd.Process.Kill()
			<-p.exited
			t.Errorf("%s did not stop within %v of SIGTERM", p.name, stopTimeout)
		}
	})
}

// waitForFile returns the trimmed content of path once the binary has
// written it, failing the test if the binary exits or times out first.
func (p *process) waitForFile(t testing.TB, path string) string {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		select {
		case <-p.exited:
			t.Fatalf("%s exited before writing its address (%v):\n%s", p.name, p.waitErr, p.logs)
		case <-deadline.C:
			t.Fatalf("%s not ready after %v:\n%s", p.name, readyTimeout, p.logs)
		case <-tick.C:
		}
	}
}

// logBuffer collects a binary's output; the binary writes it while the
// test may read it, so access is serialized.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

// String is everything written so far.
func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
