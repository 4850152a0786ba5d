package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestResourceQuotaAcrossAdmissionReplicas is the property quota exists
// for, with the admission stage scaled out: two admission replicas, each
// behind a registry of its own, one of them running the quota controller
// (the lease holder) and both charging the quota with optimistic updates
// against the real resourceVersion checks. 20 concurrent creates through
// both, against configmaps=5, store exactly 5; deleting frees quota again.
func TestResourceQuotaAcrossAdmissionReplicas(t *testing.T) {
	s := startAdmissionStack(t)
	admission2 := s.StartBackendReplica(t, framework.StageAdmission)
	registry2 := s.StartBackendReplica(t, framework.StageRegistry, "--admission-url", admission2)
	// The second aggregator balances over both registries (its
	// --registry-url adds one to the stack's), the first sends every
	// write to the first: writers alternating between them go through
	// both admission replicas.
	agg2 := s.StartAggregatorReplica(t, "--registry-url", registry2, "--advertise-address", "198.51.100.3")
	admin := s.Client(t, s.AdminToken)
	// The replica serves the stack aggregator's certificate (the same
	// --cert-dir).
	cfg := s.RESTConfig(t, s.AdminToken)
	cfg.Host = agg2.URL
	admin2, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clients := []kubernetes.Interface{admin, admin2}

	t.Run("concurrent creates admit exactly the quota", func(t *testing.T) {
		const ns, hard = "quota-replicas", 5
		createNamespace(t, admin, ns)
		used := createQuota(t, admin, ns, "q", "configmaps", hard)

		created := createConcurrently(t, clients, ns, "q", "c", 20)
		if free := hard - int(used); created != free {
			t.Errorf("%d of 20 concurrent creates through two admission replicas succeeded under quota %d (%d used before), want %d",
				created, hard, used, free)
		}
		cms := admin.CoreV1().ConfigMaps(ns)
		list, err := cms.List(ctx(t), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != hard {
			t.Fatalf("%d configmaps stored under quota %d", len(list.Items), hard)
		}
		waitUsed(t, admin, ns, "q", "configmaps", hard)

		// Deleting two frees two: once the controller has seen the
		// deletes, four more creates through both replicas admit two.
		var deleted int
		for _, cm := range list.Items {
			if cm.Name == rootCAConfigMap || deleted == 2 {
				continue
			}
			if err := cms.Delete(ctx(t), cm.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			deleted++
		}
		waitUsed(t, admin, ns, "q", "configmaps", hard-2)
		if got := createConcurrently(t, clients, ns, "q", "again", 4); got != 2 {
			t.Errorf("after deleting 2, admitted %d more; want 2", got)
		}
	})

	t.Run("a generic count is listed live", func(t *testing.T) {
		// count/<resource>.<group> of a resource the admission stage has
		// no informer for is counted with a live list; one nothing serves
		// counts zero.
		const ns = "quota-generic"
		createNamespace(t, admin, ns)
		labels := map[string]string{"app": "x"}
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d"},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
				},
			},
		}
		if _, err := admin.AppsV1().Deployments(ns).Create(ctx(t), dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			"count/deployments.apps": resource.MustParse("5"), "count/widgets.example.com": resource.MustParse("1"),
		}}}
		if _, err := admin.CoreV1().ResourceQuotas(ns).Create(ctx(t), q, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitUsed(t, admin, ns, "q", "count/deployments.apps", 1)
		waitUsed(t, admin, ns, "q", "count/widgets.example.com", 0)
	})
}

// createConcurrently creates n configmaps named prefix<i> in ns at once,
// writer i through clients[i%len(clients)], and returns how many were
// created; a refusal other than quota's fails the test.
func createConcurrently(t *testing.T, clients []kubernetes.Interface, ns, quota, prefix string, n int) int {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%d", prefix, i)}}
			_, errs[i] = clients[i%len(clients)].CoreV1().ConfigMaps(ns).Create(ctx(t), cm, metav1.CreateOptions{})
		})
	}
	wg.Wait()
	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
		case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota: "+quota):
			t.Errorf("writer %d: %v, want success or Forbidden: exceeded quota: %s", i, err, quota)
		}
	}
	return created
}

// waitUsed waits until quota in ns has used[name] == want.
func waitUsed(t *testing.T, admin kubernetes.Interface, ns, quota, name string, want int64) {
	t.Helper()
	var used resource.Quantity
	var ok bool
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		q, err := admin.CoreV1().ResourceQuotas(ns).Get(c, quota, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		used, ok = q.Status.Used[corev1.ResourceName(name)]
		return ok && used.Value() == want, nil
	}) {
		t.Errorf("quota %s/%s status.used[%s] = %s (present %v), want %d", ns, quota, name, used.String(), ok, want)
	}
}
