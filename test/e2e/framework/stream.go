package framework

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Stream is a kubectl left running (get -w, for instance) whose output the
// test reads line by line as it arrives, instead of sleeping and hoping.
type Stream struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	lines  chan string
	// exited is closed once kubectl has exited and its output is drained.
	exited chan struct{}

	mu  sync.Mutex
	all []string // every line so far, for failure messages
	err bytes.Buffer
}

// StartKubectl starts the kubectl on the PATH (or $KUBECTL) with args and
// returns at once; the process is killed when the test ends, if Stop was
// not called before.
func (r *Registry) StartKubectl(t testing.TB, args ...string) *Stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, kubectlPath(), append([]string{"--kubeconfig", r.Kubeconfig}, args...)...)
	s := &Stream{cmd: cmd, cancel: cancel, lines: make(chan string, 1024), exited: make(chan struct{})}
	cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.err}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer close(s.exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.mu.Lock()
			s.all = append(s.all, sc.Text())
			s.mu.Unlock()
			s.lines <- sc.Text()
		}
		_ = cmd.Wait()
		close(s.lines)
	}()
	t.Cleanup(s.Stop)
	return s
}

// Next returns the next line of output, failing the test when none comes
// within timeout or kubectl exits first.
func (s *Stream) Next(t testing.TB, timeout time.Duration) string {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok {
			t.Fatalf("kubectl exited before printing another line\nstdout:\n%s\nstderr:\n%s", s.Output(), s.Stderr())
		}
		return line
	case <-timer.C:
		t.Fatalf("no line from kubectl within %v\nstdout so far:\n%s\nstderr:\n%s", timeout, s.Output(), s.Stderr())
	}
	return ""
}

// WaitFor reads lines until one contains every field of want (compared
// after splitting on white space, so column padding does not matter), and
// returns that line. Lines read on the way are skipped.
func (s *Stream) WaitFor(t testing.TB, timeout time.Duration, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("no line with %q from kubectl within %v\nstdout so far:\n%s\nstderr:\n%s", want, timeout, s.Output(), s.Stderr())
		}
		line := s.Next(t, left)
		if LineStartsWith(line, want...) {
			return line
		}
	}
}

// LineStartsWith reports whether line, split on white space, starts with the
// fields of want in order.
func LineStartsWith(line string, want ...string) bool {
	got := strings.Fields(line)
	if len(got) < len(want) {
		return false
	}
	for i, w := range want {
		if got[i] != w {
			return false
		}
	}
	return true
}

// Output is everything kubectl printed on stdout so far.
func (s *Stream) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.all, "\n")
}

// Stderr is everything kubectl printed on stderr so far.
func (s *Stream) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err.String()
}

// Stop kills kubectl and waits until it has exited.
func (s *Stream) Stop() {
	s.cancel()
	for range s.lines {
	}
	<-s.exited
}

// lockedWriter serializes writes that race with readers of the buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
