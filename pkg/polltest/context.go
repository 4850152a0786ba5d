package polltest

import (
	"context"
	"testing"
	"time"
)

// Holds checks cond every Interval, with a context that ends with t or
// after timeout, until it holds or timeout passes, and reports which: for
// a test that says itself what it waited for. An error from cond fails t
// at once.
func Holds(t testing.TB, timeout time.Duration, cond func(context.Context) (bool, error)) bool {
	t.Helper()
	held, err := poll(t.Context(), timeout, cond)
	if err != nil {
		t.Fatalf("while waiting: %v", err)
	}
	return held
}

// UntilContext is Until of a condition that takes a context and may fail:
// it fails t if cond does not hold within timeout or returns an error.
func UntilContext(t testing.TB, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	held, err := poll(t.Context(), timeout, cond)
	switch {
	case err != nil:
		t.Fatalf("waiting for %s: %v", what, err)
	case !held:
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// poll checks cond every Interval until it holds, fails, or timeout
// passes. An error that only says the wait is over (the context ended
// while cond was asking) is the timeout, not a failure.
func poll(parent context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) (bool, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var err error
	held := Within(timeout, func() bool {
		var ok bool
		ok, err = cond(ctx)
		return ok || err != nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		return false, err
	}
	return held, nil
}
