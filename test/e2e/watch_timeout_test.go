package e2e

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Through the aggregator, a client-go watch with timeoutSeconds=0 (the
// server's default) or with the largest int64 streams the events made
// after it started, instead of ending at once with 504; and a list with an
// unknown resourceVersionMatch is refused as kube refuses it.
func TestWatchTimeoutThroughAggregator(t *testing.T) {
	_, agg := startAggregatorStack(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", agg.Kubeconfig(t, "admin", aggregatorAdminToken))
	if err != nil {
		t.Fatal(err)
	}
	cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
	for _, seconds := range []int64{0, math.MaxInt64} {
		c, cancel := context.WithTimeout(ctx(t), 30*time.Second)
		w, err := cms.Watch(c, metav1.ListOptions{TimeoutSeconds: &seconds, ResourceVersion: "0"})
		if err != nil {
			cancel()
			t.Fatalf("timeoutSeconds=%d: %v", seconds, err)
		}
		name := fmt.Sprint("after-", seconds)
		createConfigMap(t, cms, name, nil)
		func() {
			defer w.Stop()
			defer cancel()
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok || ev.Type == watch.Error {
						t.Fatalf("timeoutSeconds=%d: the watch ended (%v) before the event", seconds, ev.Object)
					}
					if m, err := meta.Accessor(ev.Object); err == nil && ev.Type == watch.Added && m.GetName() == name {
						return
					}
				case <-c.Done():
					t.Fatalf("timeoutSeconds=%d: no event for %s", seconds, name)
				}
			}
		}()
	}
	_, err = cms.List(ctx(t), metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Bogus"})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("list with resourceVersionMatch=Bogus: %v, want 422 Invalid", err)
	}
}
