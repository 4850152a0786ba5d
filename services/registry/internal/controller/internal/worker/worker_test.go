package worker

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
)

// A key that keeps failing is tried 1+MaxRetries times and then dropped,
// so nothing spins forever.
func TestRetriesAreBounded(t *testing.T) {
	q := New[string](controllertest.Log(), Options{Name: "t", MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	var calls atomic.Int32
	done := make(chan struct{})
	go func() {
		q.Run(ctx, func(context.Context, string) error {
			if calls.Add(1) == 4 {
				close(done)
			}
			return errors.New("boom")
		})
	}()
	q.Add("k")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("key was not retried")
	}
	// Once dropped, a fresh Add is a fresh start: the fifth call proves the
	// key left the queue rather than waiting in it.
	polltest.Until(t, 10*time.Second, "the queue to drain", func() bool { return q.Len() == 0 && q.q.NumRequeues("k") == 0 })
	if got := calls.Load(); got != 4 {
		t.Fatalf("calls = %d, want 4", got)
	}
	cancel()
}

// A key that syncs is forgotten, so its next failure starts from the base
// delay again.
func TestSuccessForgets(t *testing.T) {
	q := New[string](controllertest.Log(), Options{Name: "t"})
	q.handle("k", errors.New("x"))
	if q.q.NumRequeues("k") != 1 {
		t.Fatal("failure not counted")
	}
	q.handle("k", nil)
	if q.q.NumRequeues("k") != 0 {
		t.Fatal("success did not forget")
	}
	q.q.ShutDown()
}

// Run returns once ctx ends.
func TestRunStops(t *testing.T) {
	q := New[string](controllertest.Log(), Options{Name: "t", Workers: 2})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { q.Run(ctx, func(context.Context, string) error { return nil }); close(stopped) }()
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}
