package quota

import (
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// The rules cover the writes the plugin charges or refuses; it allows as
// is whatever they leave out, though a full quota limits what they are
// about.
func TestRulesCoverDecisions(t *testing.T) {
	full := rl("pods", "0", "configmaps", "0", "count/deployments.apps", "0", "count/namespaces", "0",
		"count/clusterroles.rbac.authorization.k8s.io", "0", "requests.cpu", "0", "requests.storage", "0",
		"services.loadbalancers", "0", "persistentvolumeclaims", "0", "gpu.deviceclass.resource.k8s.io/devices", "1")
	zero := corev1.ResourceList{}
	for name := range full {
		zero[name] = full[name]
	}
	a := setup(t, newClient(quotaObj("full", full, zero)), false)
	rules := Rules()
	if len(rules.Mutating) != 0 {
		t.Errorf("mutating rules %v for a validating plugin", rules.Mutating)
	}
	update := func(resource string, old, obj runtime.Object) *admission.Attributes {
		attrs := createAttrs(t, resource, obj)
		attrs.Operation, attrs.OldObject = admissionv1.Update, runtime.RawExtension{Raw: mustJSON(t, old)}
		return attrs
	}
	deployment := createAttrs(t, "deployments", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "d"}})
	deployment.Resource.Group = "apps"
	// The registry names a namespace's own namespace after it; even so,
	// creating it is not charged, as in kube.
	namespace := createAttrs(t, "namespaces", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}})
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: testNS}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	lb := svc.DeepCopy()
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	claim := func(storage string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: testNS},
			Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", storage)}}}
	}
	small, big := pod("p", nil), pod("p", rl("cpu", "2"))
	claimUpdate := update("resourceclaims", resourceClaim("rc", "gpu", 1), resourceClaim("rc", "gpu", 2))
	claimUpdate.Resource.Group, claimUpdate.Kind = "resource.k8s.io", metav1.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"}
	refused := []*admission.Attributes{
		createAttrs(t, "pods", small),
		createAttrs(t, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}),
		deployment,
		update("services", svc, lb),
		update("persistentvolumeclaims", claim("1Gi"), claim("2Gi")),
		update("pods", small, big),
		claimUpdate,
	}
	plugintest.Asked(t, rules.Validating, refused...)
	for _, attrs := range refused {
		if r := mustAdmit(t, a, attrs); r.Allowed {
			t.Errorf("%s %s allowed by a full quota", attrs.Operation, attrs.Resource.Resource)
		}
	}

	clusterRole := createAttrs(t, "clusterroles", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "r"}})
	clusterRole.Resource.Group, clusterRole.Namespace = "rbac.authorization.k8s.io", ""
	deploymentUpdate := update("deployments", &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadata{})
	deploymentUpdate.Resource.Group = "apps"
	del := createAttrs(t, "pods", big)
	del.Operation, del.OldObject, del.Object = admissionv1.Delete, del.Object, runtime.RawExtension{}
	plugintest.Unasked(t, a, rules.Validating,
		del,
		plugintest.Sub(update("pods", small, big), "status"),
		plugintest.Sub(update("persistentvolumeclaims", claim("1Gi"), claim("2Gi")), "status"),
		plugintest.Sub(createAttrs(t, "pods", small), "binding"),
		update("configmaps", &corev1.ConfigMap{}, &corev1.ConfigMap{Data: map[string]string{"a": "b"}}),
		deploymentUpdate,
		clusterRole,
		namespace,
	)
}

func mustJSON(t *testing.T, obj any) []byte {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
