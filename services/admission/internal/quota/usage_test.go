package quota

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

func TestUsage(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	withInit := pod("p", rl("cpu", "100m"))
	withInit.Spec.Containers[0].Resources.Limits = rl("memory", "1Gi")
	withInit.Spec.InitContainers = []corev1.Container{
		{Name: "sidecar", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: rl("cpu", "50m")}},
		{Name: "setup", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}},
	}
	withInit.Spec.Overhead = rl("cpu", "10m")
	finished := pod("f", rl("cpu", "1"))
	finished.Status.Phase = corev1.PodFailed
	grace := int64(30)
	stuck := pod("s", rl("cpu", "1"))
	stuck.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Hour)}
	stuck.DeletionGracePeriodSeconds = &grace
	nodePort := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}}
	noAlloc := false
	lb := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, AllocateLoadBalancerNodePorts: &noAlloc,
		Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}, {Port: 443}}}}
	class := "fast"
	pvc := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
		Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "5Gi")}}}
	cases := []struct {
		name string
		gr   schema.GroupResource
		obj  runtime.Object
		want corev1.ResourceList
	}{
		{"pod with sidecar and init container", podsResource, withInit, rl("pods", "1", "count/pods", "1",
			"cpu", "1060m", "requests.cpu", "1060m", "limits.memory", "1Gi")},
		{"finished pod", podsResource, finished, rl("count/pods", "1")},
		{"pod stuck terminating", podsResource, stuck, rl("count/pods", "1")},
		{"node port service", servicesResource, nodePort, rl("services", "1", "count/services", "1",
			"services.nodeports", "2", "services.loadbalancers", "0")},
		{"load balancer without node ports", servicesResource, lb, rl("services", "1", "count/services", "1",
			"services.nodeports", "1", "services.loadbalancers", "1")},
		{"claim", pvcsResource, pvc, rl("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1",
			"requests.storage", "5Gi", "fast.storageclass.storage.k8s.io/requests.storage", "5Gi",
			"fast.storageclass.storage.k8s.io/persistentvolumeclaims", "1")},
		{"secret", schema.GroupResource{Resource: "secrets"}, &metav1.PartialObjectMetadata{}, rl("secrets", "1", "count/secrets", "1")},
		{"deployment", schema.GroupResource{Group: "apps", Resource: "deployments"}, &metav1.PartialObjectMetadata{},
			rl("count/deployments.apps", "1")},
	}
	for _, c := range cases {
		if got := usage(c.gr, c.obj, time.Now()); !equal(got, c.want) {
			t.Errorf("%s: got %s, want %s", c.name, prettyPrint(got), prettyPrint(c.want))
		}
	}
}

func TestGroupResourceOf(t *testing.T) {
	cases := map[corev1.ResourceName]schema.GroupResource{
		"pods": podsResource, "requests.cpu": podsResource, "limits.memory": podsResource, "cpu": podsResource,
		"requests.nvidia.com/gpu": podsResource, "hugepages-2Mi": podsResource,
		"requests.storage": pvcsResource, "gold.storageclass.storage.k8s.io/requests.storage": pvcsResource,
		"services.nodeports": servicesResource, "count/services": servicesResource,
		"count/deployments.apps":    {Group: "apps", Resource: "deployments"},
		"count/widgets.example.com": {Group: "example.com", Resource: "widgets"},
		"configmaps":                {Resource: "configmaps"},
	}
	for name, want := range cases {
		if got, ok := groupResourceOf(name); !ok || got != want {
			t.Errorf("%s: got %v %v, want %v", name, got, ok, want)
		}
	}
	for _, name := range []corev1.ResourceName{"count/", "bogus"} {
		if got, ok := groupResourceOf(name); ok {
			t.Errorf("%s: got %v, want unknown", name, got)
		}
	}
}

func TestControllerCountsClaimsLive(t *testing.T) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: testNS},
		Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "1Gi")}}}
	client := newClient(claim, quotaObj("q", rl("persistentvolumeclaims", "3", "requests.storage", "10Gi"), nil))
	setup(t, client, true)
	polltest.Until(t, 5*time.Second, "claims counted", func() bool {
		return equal(usedOf(t, client, "q"), rl("persistentvolumeclaims", "1", "requests.storage", "1Gi"))
	})
}
