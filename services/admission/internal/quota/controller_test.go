package quota

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

func TestControllerFillsStatusFromObjects(t *testing.T) {
	done := pod("done", nil)
	done.Status.Phase = corev1.PodSucceeded
	client := newClient(
		pod("a", rl("cpu", "250m")), pod("b", rl("cpu", "250m")), done,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: testNS}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}},
		quotaObj("q", rl("pods", "10", "count/pods", "10", "requests.cpu", "2", "configmaps", "5", "count/widgets.example.com", "3"), nil),
	)
	setup(t, client, true)
	want := rl("pods", "2", "count/pods", "3", "requests.cpu", "500m", "configmaps", "1", "count/widgets.example.com", "0")
	polltest.Until(t, 5*time.Second, "status filled", func() bool {
		q, err := client.CoreV1().ResourceQuotas(testNS).Get(context.Background(), "q", metav1.GetOptions{})
		return err == nil && equal(q.Status.Hard, q.Spec.Hard) && equal(q.Status.Used, want)
	})
}

func TestControllerFollowsSpecChanges(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), rl("pods", "0")))
	setup(t, client, true)
	ctx := context.Background()
	q, err := client.CoreV1().ResourceQuotas(testNS).Get(ctx, "q", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q.Spec.Hard = rl("pods", "3", "secrets", "2")
	if _, err := client.CoreV1().ResourceQuotas(testNS).Update(ctx, q, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 5*time.Second, "status.hard to follow spec.hard", func() bool {
		q, err := client.CoreV1().ResourceQuotas(testNS).Get(ctx, "q", metav1.GetOptions{})
		return err == nil && equal(q.Status.Hard, q.Spec.Hard) && len(q.Status.Used) == 2
	})
}

func TestDeletionFreesQuota(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), nil))
	a := setup(t, client, true)
	ctx := context.Background()
	polltest.Until(t, 5*time.Second, "status filled", func() bool { return len(usedOf(t, client, "q")) == 1 })
	admitAndCreate := func(name string) bool {
		r := mustAdmit(t, a, createAttrs(t, "pods", pod(name, nil)))
		if r.Allowed {
			if _, err := client.CoreV1().Pods(testNS).Create(ctx, pod(name, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return r.Allowed
	}
	if !admitAndCreate("a") {
		t.Fatal("first pod denied")
	}
	if admitAndCreate("b") {
		t.Fatal("second pod admitted past pods=1")
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 5*time.Second, "the deleted pod's quota to be given back", func() bool {
		u := usedOf(t, client, "q")["pods"]
		return u.IsZero()
	})
	if !admitAndCreate("b") {
		t.Fatal("pod denied after the first was deleted")
	}
}
