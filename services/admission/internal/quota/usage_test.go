package quota

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/klog/v2"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

func testEvaluators() evaluators {
	return newEvaluators(fake.NewClientset(), extendedresourcecache.NewExtendedResourceCache(klog.Background()))
}

// Each resource's objects are measured by kube's evaluator of them; every
// other resource is an object count.
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
		{"load balancer without node ports", servicesResource, lb, rl("services", "1", "count/services", "1",
			"services.nodeports", "1", "services.loadbalancers", "1")},
		{"volume claim", pvcsResource, pvc, rl("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1",
			"requests.storage", "5Gi", "fast.storageclass.storage.k8s.io/requests.storage", "5Gi",
			"fast.storageclass.storage.k8s.io/persistentvolumeclaims", "1")},
		{"resource claim", claimsResource, resourceClaim("rc", "gpu", 2), rl("count/resourceclaims.resource.k8s.io", "1",
			"gpu.deviceclass.resource.k8s.io/devices", "2", "requests.deviceclass.resource.kubernetes.io/gpu", "2")},
		{"secret", schema.GroupResource{Resource: "secrets"}, &metav1.PartialObjectMetadata{}, rl("secrets", "1", "count/secrets", "1")},
		{"deployment", schema.GroupResource{Group: "apps", Resource: "deployments"}, &metav1.PartialObjectMetadata{},
			rl("count/deployments.apps", "1")},
	}
	e := testEvaluators()
	for _, c := range cases {
		got, err := e.of(c.gr).Usage(c.obj)
		if err != nil || !equal(got, c.want) {
			t.Errorf("%s: got %s (%v), want %s", c.name, prettyPrint(got), err, prettyPrint(c.want))
		}
	}
}

func TestCovering(t *testing.T) {
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	cases := map[corev1.ResourceName]schema.GroupResource{
		"pods": podsResource, "requests.cpu": podsResource, "limits.memory": podsResource, "cpu": podsResource,
		"requests.nvidia.com/gpu": podsResource, "hugepages-2Mi": podsResource,
		"requests.storage": pvcsResource, "gold.storageclass.storage.k8s.io/requests.storage": pvcsResource,
		"services.nodeports": servicesResource, "count/services": servicesResource,
		"gpu.deviceclass.resource.k8s.io/devices": claimsResource,
		"count/resourceclaims.resource.k8s.io":    claimsResource,
		"count/deployments.apps":                  deployments,
		"count/widgets.example.com":               {Group: "example.com", Resource: "widgets"},
		"configmaps":                              {Resource: "configmaps"},
	}
	e := testEvaluators()
	for name, want := range cases {
		if got := e.covering(name); len(got) != 1 || got[0] != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	for _, name := range []corev1.ResourceName{"count/", "bogus"} {
		if got := e.covering(name); len(got) != 0 {
			t.Errorf("%s: got %v, want none", name, got)
		}
	}
}

// resourceClaim asks for n devices of a DeviceClass.
func resourceClaim(name, class string, n int64) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "req", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class,
				AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n}}}}},
	}
}

func TestControllerCountsClaimsLive(t *testing.T) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: testNS},
		Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "1Gi")}}}
	client := newClient(claim, resourceClaim("rc", "gpu", 2),
		quotaObj("q", rl("persistentvolumeclaims", "3", "requests.storage", "10Gi", "gpu.deviceclass.resource.k8s.io/devices", "4"), nil))
	setup(t, client, true)
	polltest.Until(t, 5*time.Second, "claims counted", func() bool {
		return equal(usedOf(t, client, "q"), rl("persistentvolumeclaims", "1", "requests.storage", "1Gi", "gpu.deviceclass.resource.k8s.io/devices", "2"))
	})
}
