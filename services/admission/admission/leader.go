package admission

import (
	"context"
	"log/slog"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lease timings: kube-controller-manager's defaults.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// LeasePrefix names the Leases in kube-system that background work runs
// under: kubesplit-admission-<name>.
const LeasePrefix = "kubesplit-admission-"

// job is background work a plugin registered with Deps.Run.
type job struct {
	name string
	run  func(ctx context.Context)
}

// leaseIdentity names this replica as a Lease holder.
func leaseIdentity(id string) string {
	if id != "" {
		return id
	}
	host, err := os.Hostname()
	if err != nil {
		host = "admission"
	}
	return host + "_" + rand.String(8)
}

// runLeased runs j while this replica holds its Lease, campaigning again
// whenever leadership is lost, until ctx ends. The Lease is released on
// the way out so that another replica takes over at once. The work runs
// here rather than in the elector's callback goroutine, which nobody
// waits for: a new term never overlaps the last one's work, and runLeased
// returns only once the work has.
func runLeased(ctx context.Context, client kubernetes.Interface, identity string, j job, log *slog.Logger) {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: LeasePrefix + j.name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	for ctx.Err() == nil {
		started := make(chan context.Context, 1)
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, Name: j.name, ReleaseOnCancel: true,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) { started <- lctx },
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			log.Error("leader election", "job", j.name, "err", err)
			return
		}
		done := make(chan struct{})
		go func() { defer close(done); elector.Run(ctx) }()
		select {
		case lctx := <-started:
			log.Info("leading", "job", j.name, "identity", identity)
			j.run(lctx) // lctx ends when leadership is lost or ctx ends
			<-done
			log.Info("stopped leading", "job", j.name)
		case <-done:
		}
	}
}
