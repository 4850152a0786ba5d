package leader

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

const testLease = "kubesplit-test"

// fastConfig is the test Lease on client, with timings short enough for
// tests.
func fastConfig(client *fake.Clientset, identity string) Config {
	return Config{Client: client.CoordinationV1(), Namespace: "kube-system", Name: testLease, Identity: identity,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 50 * time.Millisecond,
		Log: slog.New(slog.DiscardHandler)}
}

// leading runs Run in the background, reporting each term's start on
// started and counting terms that are live.
type leading struct {
	started chan string
	live    atomic.Int32
	done    chan struct{}
}

func campaign(ctx context.Context, client *fake.Clientset, identity string, l *leading) {
	go func() {
		defer close(l.done)
		Run(ctx, fastConfig(client, identity), func(ctx context.Context) {
			l.live.Add(1)
			defer l.live.Add(-1)
			l.started <- identity
			<-ctx.Done()
		})
	}()
}

func newLeading() *leading {
	return &leading{started: make(chan string, 8), done: make(chan struct{})}
}

func expectStart(t *testing.T, l *leading, who string) {
	t.Helper()
	select {
	case got := <-l.started:
		if got != who {
			t.Fatalf("%s started, want %s", got, who)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never started", who)
	}
}

// Of two replicas only one runs the controller; when it stops (and hands
// the lease back), the other takes over.
func TestOneLeaderThenHandover(t *testing.T) {
	client := fake.NewClientset()
	ctxA, cancelA := context.WithCancel(t.Context())
	a := newLeading()
	campaign(ctxA, client, "a", a)
	expectStart(t, a, "a")

	ctxB, cancelB := context.WithCancel(t.Context())
	defer cancelB()
	b := newLeading()
	campaign(ctxB, client, "b", b)

	// b must not start while a holds the lease, for several of b's tries.
	select {
	case who := <-b.started:
		t.Fatalf("%s started while a led", who)
	case <-time.After(10 * fastConfig(client, "").RetryPeriod):
	}

	cancelA()
	<-a.done
	if a.live.Load() != 0 {
		t.Fatal("a's work still running after Run returned")
	}
	expectStart(t, b, "b")
	lease, err := client.CoordinationV1().Leases("kube-system").Get(t.Context(), testLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "b" {
		t.Fatalf("lease held by %v, want b", lease.Spec.HolderIdentity)
	}
}

// A replica that cannot renew its lease stops its controller, and runs it
// again once it wins the lease back, never two terms at once.
func TestLostLeaseStopsAndRecampaigns(t *testing.T) {
	client := fake.NewClientset()
	var failing atomic.Bool
	client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failing.Load() {
			return true, nil, errors.New("registry unreachable")
		}
		return false, nil, nil
	})
	l := newLeading()
	campaign(t.Context(), client, "a", l)
	expectStart(t, l, "a")

	failing.Store(true)
	// The first term ends once renewal fails past RenewDeadline.
	deadline := time.After(10 * time.Second)
	for l.live.Load() != 0 {
		select {
		case <-deadline:
			t.Fatal("controller kept running without the lease")
		case <-time.After(10 * time.Millisecond):
		}
	}
	failing.Store(false)
	expectStart(t, l, "a")
	if n := l.live.Load(); n != 1 {
		t.Fatalf("%d terms live, want 1", n)
	}
}

// A controller that returns while leading hands the lease back and is run
// again in a later term.
func TestReturningControllerRestarts(t *testing.T) {
	client := fake.NewClientset()
	var runs atomic.Int32
	again := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, fastConfig(client, "a"), func(ctx context.Context) {
			if runs.Add(1) == 2 {
				close(again)
				<-ctx.Done()
			}
		})
	}()
	select {
	case <-again:
	case <-time.After(10 * time.Second):
		t.Fatal("controller not restarted after returning")
	}
	cancel()
	<-done
}
