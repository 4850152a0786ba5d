package serviceaccount

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
)

func ns(name string, terminating bool) *corev1.Namespace {
	n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	if terminating {
		now := metav1.Now()
		n.DeletionTimestamp = &now
		n.Status.Phase = corev1.NamespaceTerminating
	}
	return n
}

func start(t *testing.T, client *fake.Clientset) {
	t.Helper()
	c, err := New(Options{Client: client, Log: controllertest.Log()})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)
}

func hasDefault(ctx context.Context, client *fake.Clientset, namespace string) (bool, error) {
	_, err := client.CoreV1().ServiceAccounts(namespace).Get(ctx, DefaultName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// A namespace gets its default account, a new namespace too, and a deleted
// account comes back.
func TestCreatesAndRecreates(t *testing.T) {
	client := fake.NewClientset(ns("existing", false))
	start(t, client)
	polltest.UntilContext(t, 10*time.Second, "existing's default account", func(ctx context.Context) (bool, error) { return hasDefault(ctx, client, "existing") })

	if _, err := client.CoreV1().Namespaces().Create(t.Context(), ns("fresh", false), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, 10*time.Second, "fresh's default account", func(ctx context.Context) (bool, error) { return hasDefault(ctx, client, "fresh") })

	if err := client.CoreV1().ServiceAccounts("fresh").Delete(t.Context(), DefaultName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, 10*time.Second, "fresh's default account", func(ctx context.Context) (bool, error) { return hasDefault(ctx, client, "fresh") })
}

// A namespace being deleted gets no account.
func TestSkipsTerminating(t *testing.T) {
	client := fake.NewClientset(ns("doomed", true))
	c, err := New(Options{Client: client, Log: controllertest.Log()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.NamespaceIndexer().Add(ns("doomed", true)); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(t.Context(), "doomed"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := hasDefault(t.Context(), client, "doomed"); ok {
		t.Fatal("account created in a terminating namespace")
	}
}
