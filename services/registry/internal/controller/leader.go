package controller

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

// elector campaigns for one controller's Lease.
type elector struct {
	cfg    Config
	lease  string
	client coordinationv1.LeasesGetter
	log    *slog.Logger
}

// lead runs fn whenever this replica holds the lease, until ctx ends.
// kube-controller-manager exits when it loses a lease; a registry replica
// must keep serving, so here losing the lease only stops fn, and the replica
// campaigns again. A term's fn has returned before the next campaign starts,
// so two terms never overlap in one process. Should fn return while still
// leading, the lease is handed back rather than held by a replica that no
// longer runs the controller, and the replica campaigns again after
// RetryPeriod.
func (e elector) lead(ctx context.Context, fn func(context.Context)) {
	for ctx.Err() == nil {
		termCtx, endTerm := context.WithCancel(ctx)
		t := &term{done: make(chan struct{})}
		var early atomic.Bool
		le, err := leaderelection.NewLeaderElector(e.config(t, func(leading context.Context) {
			fn(leading)
			if leading.Err() == nil {
				early.Store(true)
				endTerm()
			}
		}))
		if err != nil {
			// complete() checked every rule NewLeaderElector applies.
			e.log.Error("leader election misconfigured", "err", err)
			endTerm()
			return
		}
		le.Run(termCtx)
		t.wait()
		if early.Load() && ctx.Err() == nil {
			e.log.Warn("controller returned while leading; campaigning again", "lease", e.lease)
			select {
			case <-ctx.Done():
			case <-time.After(e.cfg.RetryPeriod):
			}
		}
		endTerm()
	}
}

// config is the leader election for one term.
func (e elector) config(t *term, fn func(context.Context)) leaderelection.LeaderElectionConfig {
	return leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: e.cfg.LeaseNamespace, Name: e.lease},
			Client:     e.client,
			LockConfig: resourcelock.ResourceLockConfig{Identity: e.cfg.Identity},
		},
		LeaseDuration: e.cfg.LeaseDuration,
		RenewDeadline: e.cfg.RenewDeadline,
		RetryPeriod:   e.cfg.RetryPeriod,
		// Handing the lease back on shutdown lets another replica take
		// over at once instead of after LeaseDuration.
		ReleaseOnCancel: true,
		Name:            e.lease,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if !t.begin(ctx) {
					return
				}
				defer close(t.done)
				e.log.Info("acquired lease; starting", "lease", e.lease, "identity", e.cfg.Identity)
				fn(ctx)
			},
			OnStoppedLeading: func() {
				e.log.Debug("not leading", "lease", e.lease)
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
