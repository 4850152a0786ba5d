package controller_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

// These tests start a real registry (embedded etcd in a temp dir) with its
// own controllers disabled, and run controller.Run against it over HTTP.

func startRegistry(t *testing.T) *rest.Config {
	t.Helper()
	srv, err := registry.Start(t.Context(), registry.Config{
		Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: t.TempDir(),
		InsecureAllowUnauthenticated: true, DisableControllers: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL(), QPS: -1}
}

func testLogger() *slog.Logger {
	if os.Getenv("CONTROLLER_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return controllertest.Log()
}

// runControllers runs controller.Run as one replica until the test ends or
// the returned stop is called; stop waits for Run to return.
func runControllers(t *testing.T, cfg *rest.Config, identity string) (stop func()) {
	t.Helper()
	return runConfigured(t, controller.Config{REST: cfg, Identity: identity})
}

// runConfigured is runControllers with a Config of the test's own, the
// lease timings short.
func runConfigured(t *testing.T, c controller.Config) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c.Logger = testLogger().With("replica", c.Identity)
	c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 2*time.Second, time.Second, 100*time.Millisecond
	go func() { done <- controller.Run(ctx, c) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// controllerWait bounds what a test waits for a controller to act.
const controllerWait = 30 * time.Second

func gone(err error) (bool, error) {
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func createNamespace(t *testing.T, c kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createConfigMap(t *testing.T, c kubernetes.Interface, ns, name string, mutate ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	for _, m := range mutate {
		m(cm)
	}
	out, err := c.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ownedBy(kind, name string, uid types.UID, block bool) func(*corev1.ConfigMap) {
	return func(cm *corev1.ConfigMap) {
		cm.OwnerReferences = append(cm.OwnerReferences, metav1.OwnerReference{
			APIVersion: "v1", Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: &block,
		})
	}
}

// Deleting a namespace deletes its content; content held by a finalizer
// holds the namespace (and the conditions say so) until the finalizer is
// removed; then the namespace is finalized and goes.
func TestNamespaceDeletion(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	runControllers(t, cfg, "r1")

	createNamespace(t, c, "doomed")
	createNamespace(t, c, "bystander")
	createConfigMap(t, c, "doomed", "a")
	createConfigMap(t, c, "doomed", "held", func(cm *corev1.ConfigMap) { cm.Finalizers = []string{"example.com/hold"} })
	if _, err := c.CoreV1().Secrets("doomed").Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, c, "bystander", "keep")

	if err := c.CoreV1().Namespaces().Delete(t.Context(), "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, controllerWait, "conditions report the held content", func(ctx context.Context) (bool, error) {
		ns, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range ns.Status.Conditions {
			if cond.Type == corev1.NamespaceFinalizersRemaining && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	for _, name := range []string{"a"} {
		if _, err := c.CoreV1().ConfigMaps("doomed").Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("configmap %s not deleted: %v", name, err)
		}
	}
	if _, err := c.CoreV1().Secrets("doomed").Get(t.Context(), "s", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("secret not deleted: %v", err)
	}

	held, err := c.CoreV1().ConfigMaps("doomed").Get(t.Context(), "held", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("held configmap: %v", err)
	}
	held.Finalizers = nil
	if _, err := c.CoreV1().ConfigMaps("doomed").Update(t.Context(), held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, controllerWait, "namespace deleted", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return gone(err)
	})
	if _, err := c.CoreV1().ConfigMaps("bystander").Get(t.Context(), "keep", metav1.GetOptions{}); err != nil {
		t.Errorf("other namespace's content touched: %v", err)
	}
}

// Every namespace gets a "default" ServiceAccount, again after it is
// deleted.
func TestDefaultServiceAccount(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	runControllers(t, cfg, "r1")
	createNamespace(t, c, "team")
	hasDefault := func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().ServiceAccounts("team").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
	polltest.UntilContext(t, controllerWait, "default account created", hasDefault)
	polltest.UntilContext(t, controllerWait, "system namespace has one too", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().ServiceAccounts("kube-system").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err := c.CoreV1().ServiceAccounts("team").Delete(t.Context(), "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, controllerWait, "default account recreated", hasDefault)
}

// The three propagation policies, end to end.
func TestGarbageCollection(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	runControllers(t, cfg, "r1")
	createNamespace(t, c, "gc")
	cms := c.CoreV1().ConfigMaps("gc")
	cmGone := func(name string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			_, err := cms.Get(ctx, name, metav1.GetOptions{})
			return gone(err)
		}
	}
	policy := func(p metav1.DeletionPropagation) metav1.DeleteOptions {
		return metav1.DeleteOptions{PropagationPolicy: &p}
	}

	t.Run("background", func(t *testing.T) {
		owner := createConfigMap(t, c, "gc", "bg-owner")
		createConfigMap(t, c, "gc", "bg-dep", ownedBy("ConfigMap", owner.Name, owner.UID, false))
		createConfigMap(t, c, "gc", "bg-stray", ownedBy("ConfigMap", "never", "no-such-uid", false))
		polltest.UntilContext(t, controllerWait, "dependent of a missing owner collected", cmGone("bg-stray"))
		if _, err := cms.Get(t.Context(), "bg-dep", metav1.GetOptions{}); err != nil {
			t.Fatalf("dependent of a live owner: %v", err)
		}
		if err := cms.Delete(t.Context(), owner.Name, policy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatal(err)
		}
		polltest.UntilContext(t, controllerWait, "dependent collected after its owner", cmGone("bg-dep"))
	})

	t.Run("cluster-scoped owner", func(t *testing.T) {
		role, err := c.RbacV1().ClusterRoles().Create(t.Context(),
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gc-owner"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		createConfigMap(t, c, "gc", "cs-dep", func(cm *corev1.ConfigMap) {
			cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "rbac.authorization.k8s.io/v1",
				Kind: "ClusterRole", Name: role.Name, UID: role.UID}}
		})
		if err := c.RbacV1().ClusterRoles().Delete(t.Context(), role.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		polltest.UntilContext(t, controllerWait, "namespaced dependent of a cluster-scoped owner collected", cmGone("cs-dep"))
	})

	t.Run("foreground", func(t *testing.T) {
		owner := createConfigMap(t, c, "gc", "fg-owner")
		mid := createConfigMap(t, c, "gc", "fg-mid", ownedBy("ConfigMap", owner.Name, owner.UID, true))
		createConfigMap(t, c, "gc", "fg-leaf", ownedBy("ConfigMap", mid.Name, mid.UID, true))
		if err := cms.Delete(t.Context(), owner.Name, policy(metav1.DeletePropagationForeground)); err != nil {
			t.Fatal(err)
		}
		// The owner waits for fg-mid, which waits for fg-leaf: once the
		// owner is gone, both must already be.
		polltest.UntilContext(t, controllerWait, "owner deleted", cmGone(owner.Name))
		for _, name := range []string{"fg-mid", "fg-leaf"} {
			if _, err := cms.Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s outlived its foreground-deleted owner: %v", name, err)
			}
		}
	})

	t.Run("orphan", func(t *testing.T) {
		owner := createConfigMap(t, c, "gc", "or-owner")
		createConfigMap(t, c, "gc", "or-dep", ownedBy("ConfigMap", owner.Name, owner.UID, true))
		if err := cms.Delete(t.Context(), owner.Name, policy(metav1.DeletePropagationOrphan)); err != nil {
			t.Fatal(err)
		}
		polltest.UntilContext(t, controllerWait, "owner deleted", cmGone(owner.Name))
		dep, err := cms.Get(t.Context(), "or-dep", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("orphaned dependent: %v", err)
		}
		if len(dep.OwnerReferences) != 0 {
			t.Fatalf("orphaned dependent still owned: %v", dep.OwnerReferences)
		}
	})
}

// With two replicas each controller runs in one, whose identity holds its
// Lease; when that replica stops, the other takes every lease over and
// the controllers keep working.
func TestLeasesFailOver(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	stopA := runControllers(t, cfg, "replica-a")
	leases := []string{"kubesplit-namespace-controller", "kubesplit-serviceaccount-controller", "kubesplit-garbagecollector-controller"}
	holders := func(ctx context.Context) ([]string, error) {
		var out []string
		for _, name := range leases {
			l, err := c.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				out = append(out, "")
				continue
			}
			if err != nil {
				return nil, err
			}
			h := ""
			if l.Spec.HolderIdentity != nil {
				h = *l.Spec.HolderIdentity
			}
			out = append(out, h)
		}
		return out, nil
	}
	allHeldBy := func(who string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			h, err := holders(ctx)
			return err == nil && !slices.ContainsFunc(h, func(s string) bool { return s != who }), err
		}
	}
	polltest.UntilContext(t, controllerWait, "replica-a holds every lease", allHeldBy("replica-a"))
	runControllers(t, cfg, "replica-b")
	createNamespace(t, c, "before")
	polltest.UntilContext(t, controllerWait, "controllers work under replica-a", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().ServiceAccounts("before").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if h, _ := holders(t.Context()); slices.Contains(h, "replica-b") {
		t.Fatalf("replica-b took a lease while replica-a held it: %v", h)
	}

	stopA()
	polltest.UntilContext(t, controllerWait, "replica-b holds every lease", allHeldBy("replica-b"))
	createNamespace(t, c, "after")
	polltest.UntilContext(t, controllerWait, "controllers work under replica-b", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().ServiceAccounts("after").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}
