package admission

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// Background work runs under its Lease in kube-system while this replica
// leads, ends when the context does, and the Lease is released.
func TestRunLeased(t *testing.T) {
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	started, ended := make(chan struct{}), make(chan struct{})
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		runLeased(ctx, client, "replica-1", job{name: "quota", run: func(ctx context.Context) {
			close(started)
			<-ctx.Done()
			close(ended)
		}}, slog.New(slog.DiscardHandler))
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("job never started")
	}
	lease, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(context.Background(), LeasePrefix+"quota", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "replica-1" {
		t.Fatalf("lease %+v, %v", lease, err)
	}
	cancel()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("runLeased did not return")
	}
	select {
	case <-ended:
	default:
		t.Fatal("runLeased returned before the job ended")
	}
	lease, err = client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(context.Background(), LeasePrefix+"quota", metav1.GetOptions{})
	if err != nil || (lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "") {
		t.Fatalf("lease not released: %+v, %v", lease.Spec, err)
	}
}

// A second replica does not run the work while the first holds the Lease.
func TestRunLeasedExclusive(t *testing.T) {
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	go runLeased(ctx, client, "replica-1", job{name: "quota", run: func(ctx context.Context) { close(first); <-ctx.Done() }}, slog.New(slog.DiscardHandler))
	<-first
	second := make(chan struct{}, 1)
	ctx2, cancel2 := context.WithTimeout(ctx, retryPeriod+500*time.Millisecond)
	defer cancel2()
	runLeased(ctx2, client, "replica-2", job{name: "quota", run: func(ctx context.Context) { second <- struct{}{} }}, slog.New(slog.DiscardHandler))
	if len(second) > 0 {
		t.Fatal("second replica ran the job while the first led")
	}
}

// --controllers leaves out the quota plugin's recount by kube's name for
// it, so that it does not run twice beside a kube-controller-manager:
// with it, every quota's status is computed; without it, none is. An
// unknown name stops the start.
func TestControllersFlag(t *testing.T) {
	recounted := func(t *testing.T, controllers ...string) func(context.Context) (bool, error) {
		quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
		client := fake.NewClientset(append(cluster(), quota)...)
		l, err := NewLocal(context.Background(), onFake(LocalConfig{Client: client, Controllers: controllers, Log: slog.New(slog.DiscardHandler)}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Close)
		return func(ctx context.Context) (bool, error) {
			q, err := client.CoreV1().ResourceQuotas("ns").Get(ctx, "q", metav1.GetOptions{})
			return err == nil && len(q.Status.Hard) > 0, err
		}
	}
	polltest.UntilContext(t, 10*time.Second, "the quota's status computed", recounted(t, "*"))
	if polltest.Holds(t, time.Second, recounted(t, "*", "-resourcequota-controller")) {
		t.Error("the quota's status was computed with resourcequota-controller left out")
	}
	if _, err := NewLocal(context.Background(), onFake(LocalConfig{Client: fake.NewClientset(), Controllers: []string{"-quota"}})); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("an unknown controller: %v", err)
	}
}
