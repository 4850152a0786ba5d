package controller

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
)

// fastConfig has lease timings short enough for tests.
func fastConfig(identity string) Config {
	return Config{Identity: identity, LeaseNamespace: "kube-system",
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 50 * time.Millisecond}
}

// leading runs lead in the background, reporting each term's start on
// started and counting terms that are live.
type leading struct {
	started chan string
	live    atomic.Int32
	done    chan struct{}
}

func campaign(ctx context.Context, client *fake.Clientset, identity string, l *leading) {
	e := elector{cfg: fastConfig(identity), lease: leaseName("test"), client: client.CoordinationV1(), log: controllertest.Log()}
	go func() {
		defer close(l.done)
		e.lead(ctx, func(ctx context.Context) {
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
	case <-time.After(10 * fastConfig("").RetryPeriod):
	}

	cancelA()
	<-a.done
	if a.live.Load() != 0 {
		t.Fatal("a's controller still running after lead returned")
	}
	expectStart(t, b, "b")
	lease, err := client.CoordinationV1().Leases("kube-system").Get(t.Context(), leaseName("test"), metav1.GetOptions{})
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

// The lease namespace is created when missing.
func TestEnsureNamespace(t *testing.T) {
	client := fake.NewClientset()
	ensureNamespace(t.Context(), client.CoreV1(), "kube-system", time.Millisecond, controllertest.Log())
	if _, err := client.CoreV1().Namespaces().Get(t.Context(), "kube-system", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	// And an existing one is left alone.
	ensureNamespace(t.Context(), client.CoreV1(), "kube-system", time.Millisecond, controllertest.Log())
}

// A controller that returns while leading hands the lease back and is run
// again in a later term.
func TestReturningControllerRestarts(t *testing.T) {
	client := fake.NewClientset()
	e := elector{cfg: fastConfig("a"), lease: leaseName("test"), client: client.CoordinationV1(), log: controllertest.Log()}
	var runs atomic.Int32
	again := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.lead(ctx, func(ctx context.Context) {
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
