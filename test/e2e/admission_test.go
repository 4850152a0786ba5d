package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// admissionWait bounds what the tests wait for a controller or an
// informer of the stack: the admission stage's caches, the registry's
// namespace and serviceaccount controllers, the quota controller.
const admissionWait = 20 * time.Second

// TestBuiltinAdmissionPlugins drives each built-in plugin of the admission
// stage through the whole split stack, as a user would meet it: kubectl
// and client-go against the aggregator, refusals with kube's messages, and
// refused writes leaving etcd as it was.
func TestBuiltinAdmissionPlugins(t *testing.T) {
	s := startAdmissionStack(t)
	admin := s.Client(t, s.AdminToken)
	kc := s.Aggregator.Kubeconfig(t, "admission-admin", s.AdminToken)
	kubectl := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		return s.Aggregator.Kubectl(t, kc, "", args...)
	}
	t.Run("NamespaceLifecycle", func(t *testing.T) { testNamespaceLifecycle(t, s, admin, kubectl) })
	t.Run("ServiceAccount", func(t *testing.T) { testServiceAccountAdmission(t, admin) })
	t.Run("LimitRanger", func(t *testing.T) { testLimitRanger(t, admin) })
	t.Run("ResourceQuota", func(t *testing.T) { testResourceQuota(t, s, admin, kubectl) })
}

type kubectlFunc func(t *testing.T, args ...string) (string, error)

func testNamespaceLifecycle(t *testing.T, s *framework.Stack, admin kubernetes.Interface, kubectl kubectlFunc) {
	out, err := kubectl(t, "delete", "namespace", "kube-system", "--wait=false")
	if !kubectlForbidden(err, out, "this namespace may not be deleted") {
		t.Errorf("kubectl delete namespace kube-system: %v\n%s\nwant Forbidden: this namespace may not be deleted", err, out)
	}
	if ns, err := admin.CoreV1().Namespaces().Get(ctx(t), "kube-system", metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
		t.Errorf("kube-system after the refused delete: %v, deletionTimestamp %v", err, ns.GetDeletionTimestamp())
	}

	const ns, hold = "closing", "example.com/hold"
	createNamespace(t, admin, ns)
	cms := admin.CoreV1().ConfigMaps(ns)
	held, err := cms.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{hold}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.CoreV1().Namespaces().Delete(ctx(t), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		n, err := admin.CoreV1().Namespaces().Get(c, ns, metav1.GetOptions{})
		return err == nil && n.Status.Phase == corev1.NamespaceTerminating, nil
	}) {
		t.Fatalf("namespace %s never Terminating", ns)
	}
	// The admission stage learns of the phase from its informer: wait
	// until a dry run (admitted, never stored) is refused before the write
	// that must be.
	if !polltest.Holds(t, admissionWait, func(context.Context) (bool, error) {
		_, err := kubectl(t, "create", "configmap", "probe", "-n", ns, "--dry-run=server")
		return err != nil, nil
	}) {
		t.Fatalf("the admission stage never refused content in Terminating namespace %s", ns)
	}
	// The namespace controller deletes the root CA publisher's ConfigMap,
	// and nothing puts it back in a Terminating namespace: wait until it is
	// gone, so that the snapshots see only the refused write.
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		_, err := admin.CoreV1().ConfigMaps(ns).Get(c, rootCAConfigMap, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}) {
		t.Fatalf("%s never left Terminating namespace %s", rootCAConfigMap, ns)
	}
	before := s.Etcd.Snapshot(t, configMapsPrefix+ns+"/")
	out, err = kubectl(t, "create", "configmap", "late", "-n", ns, "--from-literal=k=v")
	want := "unable to create new content in namespace " + ns + " because it is being terminated"
	if !kubectlForbidden(err, out, want) {
		t.Errorf("kubectl create configmap in a Terminating namespace: %v\n%s\nwant Forbidden: %s", err, out, want)
	}
	assertSameSnapshot(t, before, s.Etcd.Snapshot(t, configMapsPrefix+ns+"/"))

	patch := []byte(`{"metadata":{"finalizers":null,"resourceVersion":"` + held.ResourceVersion + `"}}`)
	if _, err := cms.Patch(ctx(t), "held", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		// The namespace controller may have touched it (deletionTimestamp):
		// patch without the precondition.
		if _, err := cms.Patch(ctx(t), "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		_, err := admin.CoreV1().Namespaces().Get(c, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}) {
		t.Errorf("namespace %s still there %v after its last finalizer went", ns, admissionWait)
	}
}

func testServiceAccountAdmission(t *testing.T, admin kubernetes.Interface) {
	const ns = "accounts"
	createNamespace(t, admin, ns)
	waitDefaultServiceAccount(t, admin, ns)
	pods := admin.CoreV1().Pods(ns)
	p, err := pods.Create(ctx(t), testPod("plain", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.ServiceAccountName != "default" {
		t.Errorf("pod without serviceAccountName stored with %q, want default", p.Spec.ServiceAccountName)
	}

	named := testPod("ghostly", nil)
	named.Spec.ServiceAccountName = "ghost"
	_, err = pods.Create(ctx(t), named, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"ghost" not found`) {
		t.Errorf("pod naming a missing ServiceAccount: %v, want Forbidden: serviceaccount \"ghost\" not found", err)
	}
	if _, err := pods.Get(ctx(t), "ghostly", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused pod readable: %v", err)
	}
}

func testLimitRanger(t *testing.T, admin kubernetes.Interface) {
	const ns = "limited"
	createNamespace(t, admin, ns)
	waitDefaultServiceAccount(t, admin, ns)
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Default:        resources("500m", "256Mi"),
		DefaultRequest: resources("100m", "64Mi"),
		Max:            resources("1", "1Gi"),
	}}}}
	if _, err := admin.CoreV1().LimitRanges(ns).Create(ctx(t), lr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := admin.CoreV1().Pods(ns)
	// Wait for the admission stage's informer to hold the LimitRange: a
	// dry run comes back as it would be stored.
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		p, err := pods.Create(c, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil && len(p.Spec.Containers[0].Resources.Limits) > 0, nil
	}) {
		t.Fatalf("the admission stage never applied LimitRange %s/defaults", ns)
	}
	p, err := pods.Create(ctx(t), testPod("bare", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Spec.Containers[0].Resources
	for name, want := range map[string]struct{ got, want resource.Quantity }{
		"limits.cpu":      {got.Limits[corev1.ResourceCPU], lr.Spec.Limits[0].Default[corev1.ResourceCPU]},
		"limits.memory":   {got.Limits[corev1.ResourceMemory], lr.Spec.Limits[0].Default[corev1.ResourceMemory]},
		"requests.cpu":    {got.Requests[corev1.ResourceCPU], lr.Spec.Limits[0].DefaultRequest[corev1.ResourceCPU]},
		"requests.memory": {got.Requests[corev1.ResourceMemory], lr.Spec.Limits[0].DefaultRequest[corev1.ResourceMemory]},
	} {
		if want.got.Cmp(want.want) != 0 {
			t.Errorf("pod without resources: %s = %s, want %s", name, want.got.String(), want.want.String())
		}
	}
	if p.Annotations["kubernetes.io/limit-ranger"] == "" {
		t.Errorf("pod defaulted by LimitRanger carries no kubernetes.io/limit-ranger annotation: %v", p.Annotations)
	}

	big := testPod("big", &corev1.ResourceRequirements{Limits: resources("2", "128Mi"), Requests: resources("2", "128Mi")})
	_, err = pods.Create(ctx(t), big, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "maximum cpu usage per Container is 1, but limit is 2") {
		t.Errorf("pod over max: %v, want Forbidden: maximum cpu usage per Container is 1, but limit is 2", err)
	}
	if _, err := pods.Get(ctx(t), "big", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused pod readable: %v", err)
	}
}

// createQuota creates a ResourceQuota allowing hard of resource in ns, and
// returns what it counts as used once its status says so. The root CA
// publisher's ConfigMap counts against a quota of ConfigMaps: it is waited
// for first, so that the usage read is the one the test starts from.
func createQuota(t *testing.T, admin kubernetes.Interface, ns, name string, resourceName corev1.ResourceName, hard int) int64 {
	t.Helper()
	waitRootCA(t, admin, ns)
	rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ResourceQuotaSpec{
		Hard: corev1.ResourceList{resourceName: resource.MustParse(fmt.Sprint(hard))},
	}}
	quotas := admin.CoreV1().ResourceQuotas(ns)
	if _, err := quotas.Create(ctx(t), rq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var used int64
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		q, err := quotas.Get(c, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		u, ok := q.Status.Used[resourceName]
		used = u.Value()
		return ok && q.Status.Hard != nil, nil
	}) {
		t.Fatalf("quota %s/%s never got its status", ns, name)
	}
	return used
}

func testResourceQuota(t *testing.T, s *framework.Stack, admin kubernetes.Interface, kubectl kubectlFunc) {
	const ns, hard = "quota", 3
	createNamespace(t, admin, ns)
	used := createQuota(t, admin, ns, "cms", "count/configmaps", hard)
	free := hard - int(used)

	// Eight writers at once, through the aggregator: the quota admits
	// exactly as many as it has room for, whatever the interleaving.
	cms := admin.CoreV1().ConfigMaps(ns)
	const writers = 8
	created := createConcurrently(t, []kubernetes.Interface{admin}, ns, "cms", "cm-", writers)
	if created != free {
		t.Errorf("%d of %d concurrent creates succeeded under quota %d (%d used before), want %d", created, writers, hard, used, free)
	}
	waitUsed(t, admin, ns, "cms", "count/configmaps", hard)
	if list, err := cms.List(ctx(t), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	} else if len(list.Items) != hard {
		t.Errorf("%d configmaps stored under quota %d", len(list.Items), hard)
	}

	t.Run("dry-run", func(t *testing.T) {
		before := s.Etcd.Snapshot(t, configMapsPrefix+ns+"/")
		for _, dry := range []string{"--dry-run=server", "--dry-run=none"} {
			out, err := kubectl(t, "create", "configmap", "extra", "-n", ns, dry)
			if !kubectlForbidden(err, out, "exceeded quota: cms") {
				t.Errorf("kubectl create configmap %s in a full namespace: %v\n%s\nwant Forbidden: exceeded quota: cms", dry, err, out)
			}
		}
		assertSameSnapshot(t, before, s.Etcd.Snapshot(t, configMapsPrefix+ns+"/"))
		q, err := admin.CoreV1().ResourceQuotas(ns).Get(ctx(t), "cms", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if u := q.Status.Used["count/configmaps"]; u.Value() != hard {
			t.Errorf("quota used after refused creates = %s, want %d", u.String(), hard)
		}
	})

	t.Run("replenish", func(t *testing.T) {
		list, err := cms.List(ctx(t), metav1.ListOptions{})
		if err != nil || len(list.Items) == 0 {
			t.Fatalf("listing configmaps: %v", err)
		}
		if err := cms.Delete(ctx(t), list.Items[0].Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// The quota is given back once the controller sees the delete:
		// poll with a create until one gets in, then the next is refused.
		var last error
		if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
			_, last = cms.Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after-delete"}}, metav1.CreateOptions{})
			return last == nil, nil
		}) {
			t.Fatalf("no create admitted after a delete under a full quota: %v", last)
		}
		_, err = cms.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one-too-many"}}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota: cms") {
			t.Errorf("second create after one delete: %v, want Forbidden: exceeded quota: cms", err)
		}
		waitUsed(t, admin, ns, "cms", "count/configmaps", hard)
	})
}

// startAdmissionStack starts the split stack with users, and on cleanup
// stops the registry before the other stages: its controllers release
// their Leases with writes that go through admission, which hang for
// their whole timeout (10s) when the admission stage is gone first.
func startAdmissionStack(t *testing.T, users ...string) *framework.Stack {
	s := framework.StartStack(t, framework.StackOptions{Users: users})
	t.Cleanup(func() { s.Stop(t, framework.StageRegistry) })
	return s
}

// kubectlForbidden reports whether kubectl failed with a 403 whose message
// has msg: it prints `<resource> "<name>" is forbidden: <message>`.
func kubectlForbidden(err error, out, msg string) bool {
	return err != nil && strings.Contains(out, "is forbidden: "+msg)
}

// createNamespace creates namespace name as the admin.
func createNamespace(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	if _, err := admin.CoreV1().Namespaces().Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitDefaultServiceAccount waits for the registry's serviceaccount
// controller to create ns's default account, which every pod gets.
func waitDefaultServiceAccount(t *testing.T, admin kubernetes.Interface, ns string) {
	t.Helper()
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		_, err := admin.CoreV1().ServiceAccounts(ns).Get(c, "default", metav1.GetOptions{})
		return err == nil, nil
	}) {
		t.Fatalf("no default ServiceAccount in %s after %v", ns, admissionWait)
	}
}

// testPod is a one-container pod with the given resources (none if nil).
func testPod(name string, res *corev1.ResourceRequirements) *corev1.Pod {
	c := corev1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
	if res != nil {
		c.Resources = *res
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
}

// resources is a cpu and memory ResourceList.
func resources(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}
