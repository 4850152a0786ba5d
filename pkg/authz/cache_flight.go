package authz

import (
	"context"
	"fmt"
)

// flight is one call to the inner authorizer that identical concurrent
// lookups share.
type flight struct {
	done chan struct{}
	res  Result
	err  error
}

// joinLocked returns the call in flight for key, starting one if there is
// none.
func (c *Cached) joinLocked(ctx context.Context, key string, a Attributes) *flight {
	if f, ok := c.inflight[key]; ok {
		if c.joined != nil {
			c.joined()
		}
		return f
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	// The call runs apart from its first caller, and without its
	// cancellation, so that the first caller giving up does not fail the
	// others; the inner authorizer's own timeout bounds it.
	go c.run(context.WithoutCancel(ctx), key, a, f)
	return f
}

// run asks the inner authorizer, records the answer and releases the
// waiters.
func (c *Cached) run(ctx context.Context, key string, a Attributes, f *flight) {
	defer close(f.done)
	defer func() {
		// A panic here would not reach the caller's recovery middleware, as
		// it runs on another goroutine: turn it into an error.
		if p := recover(); p != nil {
			f.res, f.err = Result{Decision: DecisionNoOpinion}, fmt.Errorf("authz: authorizer panicked: %v", p)
			c.finish(key, f, f.res, f.err)
		}
	}()
	res, err := c.next.Authorize(ctx, a)
	f.res, f.err = res, err
	c.finish(key, f, res, err)
}

// finish removes the flight and stores its answer.
func (c *Cached) finish(key string, f *flight, res Result, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] == f {
		delete(c.inflight, key)
	}
	// An answer at a newer revision is news: older answers are stale now.
	c.advanceLocked(res.Revision)
	if err == nil {
		c.storeLocked(key, res)
	}
}

// wait returns the flight's answer, or gives up when ctx ends.
func (f *flight) wait(ctx context.Context) (Result, error) {
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return Result{Decision: DecisionNoOpinion}, ctx.Err()
	}
}
