package health

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultLogStall is how long a log write may take before LogCheck fails.
const DefaultLogStall = 10 * time.Second

// LogCheck is kube's "log" check for a process that logs through
// log/slog: it fails while a log write has been blocked for longer than
// the stall limit (a full pipe, a hung terminal or disk) and while the
// last write failed, and passes again once a write gets through. Wrap
// puts it between a logger and its handler.
type LogCheck struct {
	stall time.Duration
	now   func() time.Time

	mu       sync.Mutex
	pending  int       // writes in progress or waiting for one
	progress time.Time // last completion, or when pending left zero
	lastErr  error
}

// NewLogCheck returns a log check failing on writes blocked for longer
// than stall (DefaultLogStall when zero).
func NewLogCheck(stall time.Duration) *LogCheck {
	if stall <= 0 {
		stall = DefaultLogStall
	}
	return &LogCheck{stall: stall, now: time.Now}
}

// Wrap returns h with every record's write watched by c.
func (c *LogCheck) Wrap(h slog.Handler) slog.Handler { return &watchedHandler{h: h, c: c} }

// Check is the check named "log".
func (c *LogCheck) Check() Check {
	return Check{Name: "log", Func: func(context.Context) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.pending > 0 {
			if d := c.now().Sub(c.progress); d > c.stall {
				return fmt.Errorf("a log write has been blocked for %v", d.Round(time.Second))
			}
		}
		if c.lastErr != nil {
			return fmt.Errorf("the last log write failed: %w", c.lastErr)
		}
		return nil
	}}
}

func (c *LogCheck) begin() {
	c.mu.Lock()
	if c.pending == 0 {
		c.progress = c.now()
	}
	c.pending++
	c.mu.Unlock()
}

func (c *LogCheck) end(err error) {
	c.mu.Lock()
	c.pending--
	c.progress, c.lastErr = c.now(), err
	c.mu.Unlock()
}

// watchedHandler is a handler whose writes a LogCheck watches.
type watchedHandler struct {
	h slog.Handler
	c *LogCheck
}

func (w *watchedHandler) Enabled(ctx context.Context, l slog.Level) bool { return w.h.Enabled(ctx, l) }

func (w *watchedHandler) Handle(ctx context.Context, r slog.Record) error {
	w.c.begin()
	err := w.h.Handle(ctx, r)
	w.c.end(err)
	return err
}

func (w *watchedHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &watchedHandler{h: w.h.WithAttrs(attrs), c: w.c}
}

func (w *watchedHandler) WithGroup(name string) slog.Handler {
	return &watchedHandler{h: w.h.WithGroup(name), c: w.c}
}
