// Package revisiontest reads revision streams in tests, with a bound on
// every wait instead of a blocking read.
package revisiontest

import (
	"io"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/revision"
)

// Lines reads a stream's revisions on a goroutine; the channel closes when
// the stream ends or a line is malformed.
func Lines(body io.Reader) <-chan int64 {
	out := make(chan int64, 16)
	go func() {
		defer close(out)
		_ = revision.Read(body, func(rev int64) error { out <- rev; return nil })
	}()
	return out
}

// Next returns the next revision of lines, and false once the stream has
// ended; it fails the test after 10 s without one.
func Next(t testing.TB, lines <-chan int64) (int64, bool) {
	t.Helper()
	select {
	case rev, ok := <-lines:
		return rev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10s")
		return 0, false
	}
}
