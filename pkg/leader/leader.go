// Package leader runs work on one replica at a time: the holder of a
// coordination.k8s.io Lease, as kube-controller-manager's controllers run.
// The registry's controllers and the admission stage's background work
// (the quota controller) both run under it.
package leader

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Config is one Lease and how this replica campaigns for it.
type Config struct {
	// Client reads and writes the Lease.
	Client coordinationv1.LeasesGetter
	// Namespace and Name are the Lease's.
	Namespace, Name string
	// Identity names this replica as the Lease's holder.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's
	// leader election timings (kube-controller-manager's flags of the
	// same names).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Log receives the terms' starts and ends.
	Log *slog.Logger
}

// Run runs fn whenever this replica holds the Lease, until ctx ends.
// kube-controller-manager exits when it loses a lease; a kubesplit replica
// must keep serving, so here losing the Lease only stops fn (its context
// ends), and the replica campaigns again. A term's fn has returned before
// the next campaign starts, so two terms never overlap in one process, and
// Run returns only once fn has. Should fn return while still leading, the
// Lease is handed back rather than held by a replica that no longer runs
// the work, and the replica campaigns again after RetryPeriod. The Lease is
// also handed back when ctx ends, so that another replica takes over at
// once instead of after LeaseDuration.
func Run(ctx context.Context, cfg Config, fn func(context.Context)) {
	for ctx.Err() == nil {
		termCtx, endTerm := context.WithCancel(ctx)
		t := &term{done: make(chan struct{})}
		var early atomic.Bool
		le, err := leaderelection.NewLeaderElector(cfg.election(t, func(leading context.Context) {
			fn(leading)
			if leading.Err() == nil {
				early.Store(true)
				endTerm()
			}
		}))
		if err != nil {
			cfg.Log.Error("leader election misconfigured", "lease", cfg.Name, "err", err)
			endTerm()
			return
		}
		le.Run(termCtx)
		t.wait()
		if early.Load() && ctx.Err() == nil {
			cfg.Log.Warn("work returned while leading; campaigning again", "lease", cfg.Name)
			select {
			case <-ctx.Done():
			case <-time.After(cfg.RetryPeriod):
			}
		}
		endTerm()
	}
}

// election is the leader election for one term.
func (cfg Config) election(t *term, fn func(context.Context)) leaderelection.LeaderElectionConfig {
	return leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
			Client:     cfg.Client,
			LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity},
		},
		LeaseDuration:   cfg.LeaseDuration,
		RenewDeadline:   cfg.RenewDeadline,
		RetryPeriod:     cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            cfg.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if !t.begin(ctx) {
					return
				}
				defer close(t.done)
				cfg.Log.Info("acquired lease; starting", "lease", cfg.Name, "identity", cfg.Identity)
				fn(ctx)
			},
			OnStoppedLeading: func() {
				cfg.Log.Debug("not leading", "lease", cfg.Name)
			},
		},
	}
}

// term tracks one campaign's leadership callback. client-go starts
// OnStartedLeading in a goroutine and may return from Run before that
// goroutine has even begun, so whether the term led is settled under a lock:
// a callback that starts after Run returned sees its context already
// cancelled and does nothing.
type term struct {
	mu      sync.Mutex
	started bool
	done    chan struct{}
}

// begin records that the term leads, unless its context has already ended.
func (t *term) begin(ctx context.Context) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	t.started = true
	return true
}

// wait returns once the term's fn has returned, or at once if it never ran.
// It is called after Run returned, when the leading context is cancelled.
func (t *term) wait() {
	t.mu.Lock()
	started := t.started
	t.mu.Unlock()
	if started {
		<-t.done
	}
}
