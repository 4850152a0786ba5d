// Package polltest waits in tests for a condition that something else
// makes true (a server becoming ready, an informer catching up), checking
// it at a short interval up to a deadline, and failing the test with what
// it waited for when the deadline passes.
package polltest

import (
	"testing"
	"time"
)

// Interval is how often Until checks its condition.
const Interval = 10 * time.Millisecond

// Until checks cond every Interval until it holds, and fails t if it does
// not within timeout.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Within checks cond every Interval until it holds or timeout passes, and
// reports which.
func Within(timeout time.Duration, cond func() bool) bool {
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
	return true
}
