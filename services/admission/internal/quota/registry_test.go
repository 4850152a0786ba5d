package quota

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/embedetcd/etcdtest"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

// startRegistry runs a real registry on a real etcd and returns a client of
// it: quota's optimistic updates then meet the real resourceVersion checks.
func startRegistry(t *testing.T) kubernetes.Interface {
	t.Helper()
	endpoint, _ := etcdtest.Start(t)
	srv, err := registry.Start(context.Background(), registry.Config{
		Endpoint:                     serve.Endpoint{BindAddress: "127.0.0.1:0"},
		EtcdServers:                  []string{endpoint},
		InsecureAllowUnauthenticated: true,
		DisableControllers:           true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}}
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return client
}

// TestRegistryConcurrentCreatesAdmitExactlyTheQuota is the property quota
// exists for: 20 concurrent creates through two admission replicas and a
// real registry, against configmaps=5, store exactly 5; deleting frees
// quota again.
func TestRegistryConcurrentCreatesAdmitExactlyTheQuota(t *testing.T) {
	client := startRegistry(t)
	ctx := context.Background()
	leader, follower := setup(t, client, true), setup(t, client, false)
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: rl("configmaps", "5")}}
	if _, err := client.CoreV1().ResourceQuotas(testNS).Create(ctx, q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the controller to fill the status", func() bool { return len(usedOf(t, client, "q")) == 1 })

	replicas := []admission.Admitter{leader, follower}
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if admitAndCreate(t, client, replicas[i%2], fmt.Sprintf("c%d", i)) {
				admitted.Add(1)
			}
		})
	}
	wg.Wait()
	cms, err := client.CoreV1().ConfigMaps(testNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if admitted.Load() != 5 || len(cms.Items) != 5 {
		t.Fatalf("admitted %d, stored %d; want 5", admitted.Load(), len(cms.Items))
	}
	if used := usedOf(t, client, "q")["configmaps"]; used.Value() != 5 {
		t.Fatalf("used %s, want 5", used.String())
	}

	for _, cm := range cms.Items[:2] {
		if err := client.CoreV1().ConfigMaps(testNS).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "deletions to free quota", func() bool {
		used := usedOf(t, client, "q")["configmaps"]
		return used.Value() == 3
	})
	got := 0
	for i := range 4 {
		if admitAndCreate(t, client, replicas[i%2], fmt.Sprintf("again%d", i)) {
			got++
		}
	}
	if got != 2 {
		t.Fatalf("after deleting 2, admitted %d more; want 2", got)
	}
}

// admitAndCreate asks the admitter about a configmap and stores it if
// allowed, as the registry's write path does.
func admitAndCreate(t *testing.T, client kubernetes.Interface, a admission.Admitter, name string) bool {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}}
	r, err := a.Admit(context.Background(), createAttrs(t, "configmaps", cm))
	if err != nil {
		t.Error(err)
		return false
	}
	if !r.Allowed {
		return false
	}
	if _, err := client.CoreV1().ConfigMaps(testNS).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Error(err)
	}
	return true
}

// TestRegistryGenericCountIsListedLive: count/<resource>.<group> of a
// resource without an informer here is counted with a live list.
func TestRegistryGenericCountIsListedLive(t *testing.T) {
	client := startRegistry(t)
	ctx := context.Background()
	setup(t, client, true)
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
	if _, err := client.AppsV1().Deployments(testNS).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"},
		Spec: corev1.ResourceQuotaSpec{Hard: rl("count/deployments.apps", "5", "count/widgets.example.com", "1")}}
	if _, err := client.CoreV1().ResourceQuotas(testNS).Create(ctx, q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := rl("count/deployments.apps", "1", "count/widgets.example.com", "0")
	eventually(t, "the deployment to be counted", func() bool { return equal(usedOf(t, client, "q"), want) })
}
