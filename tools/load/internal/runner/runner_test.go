package runner

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/tools/load/internal/config"
)

// These tests drive the whole tool against client-go's fake clientset: not
// a real server (no resourceVersion conflicts, no latency), but enough to
// prove every workload sends its requests, counts them, and cleans up.

func baseConfig(op config.Op) config.Config {
	return config.Config{
		Op: op, Concurrency: 4, Duration: 100 * time.Millisecond, Objects: 8, Size: 64,
		Namespace: "load-test", Watchers: 3, Updates: 5, ContentType: config.ContentJSON, Output: config.OutputText,
	}
}

func TestRunLoops(t *testing.T) {
	for _, op := range []config.Op{config.OpGet, config.OpList, config.OpCreate, config.OpUpdate, config.OpMixed} {
		t.Run(string(op), func(t *testing.T) {
			cs := fake.NewClientset()
			handleDeleteCollection(cs)
			res, err := Run(context.Background(), baseConfig(op), cs, t.Output())
			if err != nil {
				t.Fatal(err)
			}
			if res.Op != string(op) || res.Total == 0 || res.ErrorRate != 0 {
				t.Fatalf("op/total/error rate = %s/%d/%v (errors %v), want %s/>0/0", res.Op, res.Total, res.ErrorRate, res.Errors, op)
			}
			if err := res.Check(); err != nil {
				t.Errorf("Check() = %v", err)
			}
			if op == config.OpMixed && len(res.ByOp) != 4 {
				t.Errorf("mixed by_op has %d kinds, want 4: %v", len(res.ByOp), res.ByOp)
			}
			assertCleanedUp(t, cs)
		})
	}
}

func TestRunWatch(t *testing.T) {
	cs := fake.NewClientset()
	handleDeleteCollection(cs)
	res, err := Run(context.Background(), baseConfig(config.OpWatch), cs, t.Output())
	if err != nil {
		t.Fatal(err)
	}
	w := res.Watch
	if w == nil || w.Expected != 15 || w.Delivered != 15 {
		t.Fatalf("watch = %+v, want 15 of 15 events", w)
	}
	if res.Total != 5 || w.Max <= 0 {
		t.Errorf("updates/max delivery = %d/%vms, want 5/>0", res.Total, w.Max)
	}
	if err := res.Check(); err != nil {
		t.Errorf("Check() = %v", err)
	}
	assertCleanedUp(t, cs)
}

func TestRunKeepsExistingNamespace(t *testing.T) {
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "not-ours", Namespace: "load-test"}}
	cs := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "load-test"}}, other)
	handleDeleteCollection(cs)
	if _, err := Run(context.Background(), baseConfig(config.OpCreate), cs, t.Output()); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "load-test", metav1.GetOptions{}); err != nil {
		t.Errorf("namespace that existed before: %v, want it kept", err)
	}
	list, err := cs.CoreV1().ConfigMaps("load-test").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "not-ours" {
		t.Errorf("left %d ConfigMaps, want only not-ours", len(list.Items))
	}
}

// With Keep, the seeded ConfigMaps and the namespace stay for the next run.
func TestRunKeep(t *testing.T) {
	cs := fake.NewClientset()
	handleDeleteCollection(cs)
	cfg := baseConfig(config.OpGet)
	cfg.Keep = true
	if _, err := Run(context.Background(), cfg, cs, t.Output()); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "load-test", metav1.GetOptions{}); err != nil {
		t.Errorf("namespace: %v, want it kept", err)
	}
	list, err := cs.CoreV1().ConfigMaps("load-test").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != cfg.Objects {
		t.Errorf("left %d ConfigMaps (%v), want the %d seeded", len(list.Items), err, cfg.Objects)
	}
}

func TestRunCancelledStillCleansUp(t *testing.T) {
	cs := fake.NewClientset()
	handleDeleteCollection(cs)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := baseConfig(config.OpGet)
	cfg.Duration = time.Hour
	// Cancelling as the first GET is sent stands in for Ctrl-C mid-run.
	cs.PrependReactor("get", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cancel()
		return false, nil, nil
	})
	res, err := Run(ctx, cfg, cs, t.Output())
	if err != nil {
		t.Fatal(err)
	}
	if res.DurationSeconds > 60 {
		t.Errorf("duration = %vs, want the run cut short", res.DurationSeconds)
	}
	assertCleanedUp(t, cs)
}

// handleDeleteCollection makes the fake honour a ConfigMap DeleteCollection's
// label selector; out of the box it accepts the call and deletes nothing.
func handleDeleteCollection(cs *fake.Clientset) {
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	cs.PrependReactor("delete-collection", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sel := a.(k8stesting.DeleteCollectionAction).GetListRestrictions().Labels
		// The tracker, not the client: the fake holds its lock while a
		// reactor runs, and a client call would wait on it forever.
		obj, err := cs.Tracker().List(gvr, corev1.SchemeGroupVersion.WithKind("ConfigMap"), a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		for _, cm := range obj.(*corev1.ConfigMapList).Items {
			if sel.Matches(labels.Set(cm.Labels)) {
				if err := cs.Tracker().Delete(gvr, cm.Namespace, cm.Name); err != nil {
					return true, nil, err
				}
			}
		}
		return true, nil, nil
	})
}

func assertCleanedUp(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	// The fake has no namespace controller, like a registry without one:
	// the run's own objects must be gone all the same.
	list, err := cs.CoreV1().ConfigMaps("load-test").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("%d ConfigMaps left (err %v), want none", len(list.Items), err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "load-test", metav1.GetOptions{}); err == nil {
		t.Error("namespace still there after the run, want it deleted")
	}
}
