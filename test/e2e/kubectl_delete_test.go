package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// controllerWait bounds how long a test waits for a running controller to
// do its work before calling it broken.
const controllerWait = 30 * time.Second

// TestKubectlDelete deletes objects and checks they are gone from etcd.
func TestKubectlDelete(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, configMapYAML+"---\n"+deploymentYAML, "create", "--validate=false", "-f", "-")
	r.MustKubectl(t, "", "create", "configmap", "other", "--from-literal=k=v")

	out := r.MustKubectl(t, "", "delete", "configmap", "settings")
	if strings.TrimSpace(out) != `configmap "settings" deleted` {
		t.Errorf("delete printed %q", out)
	}
	if _, ok := etcdValue(t, r, configMapsPrefix+"default/settings"); ok {
		t.Error("the deleted ConfigMap is still in etcd")
	}
	if _, ok := etcdValue(t, r, configMapsPrefix+"default/other"); !ok {
		t.Error("deleting one ConfigMap removed another")
	}
	// Deleting from a manifest, as kubectl delete -f does.
	out = r.MustKubectl(t, deploymentYAML, "delete", "-f", "-")
	if strings.TrimSpace(out) != `deployment.apps "web" deleted` {
		t.Errorf("delete -f printed %q", out)
	}
	if _, ok := etcdValue(t, r, deploymentsPrefix+"default/web"); ok {
		t.Error("the deleted Deployment is still in etcd")
	}
	out, err := r.Kubectl(t, "", "delete", "configmap", "settings")
	if err == nil || !strings.Contains(out, `Error from server (NotFound): configmaps "settings" not found`) {
		t.Errorf("second delete: err=%v %q", err, out)
	}
	if out := r.MustKubectl(t, "", "delete", "configmap", "settings", "--ignore-not-found"); out != "" {
		t.Errorf("delete --ignore-not-found printed %q", out)
	}
	// delete --all empties the namespace's ConfigMaps (delete collection
	// by kubectl is one DELETE per object it listed).
	r.MustKubectl(t, "", "create", "configmap", "third", "--from-literal=k=v")
	r.MustKubectl(t, "", "delete", "configmaps", "--all")
	for k := range r.Etcd.Snapshot(t, configMapsPrefix+"default/") {
		if !strings.HasSuffix(k, "/kube-root-ca.crt") {
			t.Errorf("%s survived delete --all", k)
		}
	}
}

// family creates a parent ConfigMap and two children that name it as
// their owner, the smallest owner graph the garbage collector acts on.
func family(t *testing.T, c kubernetes.Interface, ns string) *corev1.ConfigMap {
	t.Helper()
	parent := createConfigMap(t, c.CoreV1().ConfigMaps(ns), "parent", nil)
	block := true
	for i := 1; i <= 2; i++ {
		child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("child-%d", i),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: parent.Name,
				UID: parent.UID, BlockOwnerDeletion: &block}},
		}}
		if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx(t), child, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return parent
}

// deleteOwner creates a family in namespace default, deletes its parent
// with kubectl delete --cascade=mode, and checks that the parent is gone
// already or, while the garbage collector handles its dependents, marked
// for deletion and held by the finalizer that mode asks for.
func deleteOwner(t *testing.T, r *framework.Registry, c kubernetes.Interface, mode, finalizer string) {
	t.Helper()
	family(t, c, "default")
	r.MustKubectl(t, "", "delete", "configmap", "parent", "--cascade="+mode, "--wait=false")

	parent, err := c.CoreV1().ConfigMaps("default").Get(ctx(t), "parent", metav1.GetOptions{})
	if err == nil {
		if parent.DeletionTimestamp == nil || !contains(parent.Finalizers, finalizer) {
			t.Errorf("the owner deleted with --cascade=%s has deletionTimestamp %v and finalizers %v, want %s",
				mode, parent.DeletionTimestamp, parent.Finalizers, finalizer)
		}
	} else if !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// TestKubectlDeleteCascadeForeground deletes an owner in the foreground:
// the registry marks it with the foregroundDeletion finalizer at once, and
// the garbage collector deletes the children, then the owner.
func TestKubectlDeleteCascadeForeground(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	deleteOwner(t, r, c, "foreground", metav1.FinalizerDeleteDependents)
	if !controllerRunning(t, r, "garbagecollector") {
		t.Skip("the garbage collector is not running (no holder of its Lease kubesplit-garbagecollector-controller): cannot check that dependents are deleted in the foreground")
	}
	gone := polltest.Holds(t, controllerWait, func(ctx context.Context) (bool, error) {
		list, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, cm := range list.Items {
			if cm.Name == "parent" || strings.HasPrefix(cm.Name, "child-") {
				return false, nil
			}
		}
		return true, nil
	})
	if !gone {
		t.Fatalf("the garbage collector runs, but the owner and its dependents were not all deleted within %v: %s",
			controllerWait, r.MustKubectl(t, "", "get", "cm", "-o", "yaml"))
	}
}

// TestKubectlDeleteCascadeOrphan deletes an owner leaving its children:
// they survive without the owner reference.
func TestKubectlDeleteCascadeOrphan(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	deleteOwner(t, r, c, "orphan", metav1.FinalizerOrphanDependents)
	if !controllerRunning(t, r, "garbagecollector") {
		t.Skip("the garbage collector is not running (no holder of its Lease kubesplit-garbagecollector-controller): cannot check that dependents are orphaned")
	}
	orphaned := polltest.Holds(t, controllerWait, func(ctx context.Context) (bool, error) {
		if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, "parent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, nil
		}
		for i := 1; i <= 2; i++ {
			child, err := c.CoreV1().ConfigMaps("default").Get(ctx, fmt.Sprintf("child-%d", i), metav1.GetOptions{})
			if err != nil {
				return false, fmt.Errorf("an orphaned dependent was deleted: %w", err)
			}
			if len(child.OwnerReferences) != 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if !orphaned {
		t.Fatalf("the garbage collector runs, but within %v the owner was not deleted or its dependents kept their owner reference: %s",
			controllerWait, r.MustKubectl(t, "", "get", "cm", "-o", "yaml"))
	}
	// Background (the default) with no dependents left is immediate.
	r.MustKubectl(t, "", "delete", "configmap", "child-1")
}

// TestKubectlDeleteNamespace deletes a namespace with content: it turns
// Terminating at once, and the namespace controller deletes the content
// and then the namespace.
func TestKubectlDeleteNamespace(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	c := r.Client(t)
	r.MustKubectl(t, "", "create", "namespace", "doomed")
	r.MustKubectl(t, configMapYAML+"---\n"+deploymentYAML+"---\n"+secretYAML, "create", "--validate=false", "-n", "doomed", "-f", "-")

	out := r.MustKubectl(t, "", "delete", "namespace", "doomed", "--wait=false")
	if strings.TrimSpace(out) != `namespace "doomed" deleted` {
		t.Errorf("delete namespace printed %q", out)
	}
	ns, err := c.CoreV1().Namespaces().Get(ctx(t), "doomed", metav1.GetOptions{})
	if err == nil {
		if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
			t.Errorf("deleted namespace: phase %q, deletionTimestamp %v; want Terminating", ns.Status.Phase, ns.DeletionTimestamp)
		}
		if got := r.MustKubectl(t, "", "get", "namespace", "doomed", "--no-headers"); !framework.LineStartsWith(got, "doomed", "Terminating") {
			t.Errorf("kubectl get namespace = %q, want it Terminating", got)
		}
	} else if !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if !controllerRunning(t, r, "namespace") {
		t.Skip("the namespace controller is not running (no holder of its Lease kubesplit-namespace-controller): cannot check that a deleted namespace is emptied and removed")
	}
	gone := polltest.Holds(t, controllerWait, func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if !gone {
		t.Fatalf("the namespace controller runs, but namespace doomed is still there after %v:\n%s", controllerWait,
			r.MustKubectl(t, "", "get", "namespace", "doomed", "-o", "yaml"))
	}
	for _, prefix := range []string{configMapsPrefix, deploymentsPrefix, secretsPrefix} {
		if left := r.Etcd.Snapshot(t, prefix+"doomed/"); len(left) > 0 {
			t.Errorf("keys left in etcd after the namespace was removed: %v", left)
		}
	}
	if _, ok := etcdValue(t, r, namespacesPrefix+"doomed"); ok {
		t.Error("the namespace is gone from the API but not from etcd")
	}
}
