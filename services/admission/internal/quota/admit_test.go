package quota

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

func TestChargesUntilTheLimitThenForbids(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "2"), rl("pods", "0")))
	a := setup(t, client, false)
	for i, name := range []string{"a", "b"} {
		if r := mustAdmit(t, a, createAttrs(t, "pods", pod(name, nil))); !r.Allowed {
			t.Fatalf("pod %s denied: %v", name, r.StatusError())
		}
		if got := usedOf(t, client, "q")["pods"]; got.Value() != int64(i+1) {
			t.Fatalf("after %s used pods = %s", name, got.String())
		}
	}
	r := mustAdmit(t, a, createAttrs(t, "pods", pod("c", nil)))
	want := `pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`
	if r.Allowed || r.Status.Code != http.StatusForbidden || r.Status.Message != want {
		t.Fatalf("third pod: got %+v, want 403 %q", r.Status, want)
	}
	if got := usedOf(t, client, "q")["pods"]; got.Value() != 2 {
		t.Fatalf("a denied pod was charged: used %s", got.String())
	}
}

func TestDryRunChecksButDoesNotCharge(t *testing.T) {
	client := newClient(quotaObj("q", rl("configmaps", "1"), rl("configmaps", "0")))
	a := setup(t, client, false)
	attrs := createAttrs(t, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	attrs.DryRun = true
	for range 3 {
		if r := mustAdmit(t, a, attrs); !r.Allowed {
			t.Fatalf("dry run denied: %v", r.StatusError())
		}
	}
	if got := usedOf(t, client, "q")["configmaps"]; !got.IsZero() {
		t.Fatalf("dry run charged: used %s", got.String())
	}
}

func TestStatusUnknownIsRefused(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "2"), nil))
	a := setup(t, client, false)
	r := mustAdmit(t, a, createAttrs(t, "pods", pod("a", nil)))
	if r.Allowed || !strings.Contains(r.Status.Message, "status unknown for quota: q, resource: pods") {
		t.Fatalf("got %+v, want status unknown", r.Status)
	}
	// A quota that does not cover the resource does not get in the way.
	if r := mustAdmit(t, a, createAttrs(t, "secrets", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}})); !r.Allowed {
		t.Fatalf("secret denied: %v", r.StatusError())
	}
}

func TestComputeResourcesAndConstraints(t *testing.T) {
	hard := rl("requests.cpu", "1", "requests.memory", "1Gi")
	client := newClient(quotaObj("compute", hard, rl("requests.cpu", "0", "requests.memory", "0")))
	a := setup(t, client, false)
	r := mustAdmit(t, a, createAttrs(t, "pods", pod("bare", nil)))
	want := "failed quota: compute: must specify requests.cpu for: app; requests.memory for: app"
	if r.Allowed || !strings.HasSuffix(r.Status.Message, want) {
		t.Fatalf("got %+v, want %q", r.Status, want)
	}
	if r := mustAdmit(t, a, createAttrs(t, "pods", pod("a", rl("cpu", "600m", "memory", "100Mi")))); !r.Allowed {
		t.Fatalf("denied: %v", r.StatusError())
	}
	used := usedOf(t, client, "compute")
	if cpu := used["requests.cpu"]; cpu.MilliValue() != 600 {
		t.Fatalf("used cpu %s", cpu.String())
	}
	r = mustAdmit(t, a, createAttrs(t, "pods", pod("b", rl("cpu", "600m", "memory", "100Mi"))))
	want = `exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1`
	if r.Allowed || !strings.HasSuffix(r.Status.Message, want) {
		t.Fatalf("got %+v, want %q", r.Status, want)
	}
}

func TestUpdateChargesOnlyGrowth(t *testing.T) {
	client := newClient(quotaObj("lb", rl("services.loadbalancers", "1"), rl("services.loadbalancers", "0")))
	a := setup(t, client, false)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: testNS},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	lb := svc.DeepCopy()
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	update := func(oldS, newS *corev1.Service) *admission.Attributes {
		attrs := createAttrs(t, "services", newS)
		attrs.Operation = admissionv1.Update
		attrs.OldObject = runtime.RawExtension{Object: oldS}
		return attrs
	}
	if r := mustAdmit(t, a, update(svc, lb)); !r.Allowed {
		t.Fatalf("denied: %v", r.StatusError())
	}
	if got := usedOf(t, client, "lb")["services.loadbalancers"]; got.Value() != 1 {
		t.Fatalf("used %s", got.String())
	}
	// An update that changes nothing quota counts is not charged again.
	if r := mustAdmit(t, a, update(lb, lb)); !r.Allowed {
		t.Fatalf("no-op update denied: %v", r.StatusError())
	}
	lb2 := lb.DeepCopy()
	lb2.Name = "s2"
	if r := mustAdmit(t, a, update(svc, lb2)); r.Allowed {
		t.Fatal("second load balancer admitted")
	}
}

func TestConflictRereadsAndRetries(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), rl("pods", "0")))
	a := setup(t, client, false)
	// Another replica charges the last pod between our read and our write.
	conflicts := 0
	client.PrependReactor("update", "resourcequotas", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		q := quotaObj("q", rl("pods", "1"), rl("pods", "1"))
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}, q, testNS); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "resourcequotas"}, "q", errors.New("modified"))
	})
	r := mustAdmit(t, a, createAttrs(t, "pods", pod("a", nil)))
	if r.Allowed || !strings.Contains(r.Status.Message, "exceeded quota: q") {
		t.Fatalf("got %+v, want exceeded after the re-read", r.Status)
	}
	if conflicts != 1 {
		t.Fatalf("conflicts = %d", conflicts)
	}
}

func TestEndlessConflictsAreAConflict(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), rl("pods", "0")))
	a := setup(t, client, false)
	client.PrependReactor("update", "resourcequotas", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "resourcequotas"}, "q", errors.New("modified"))
	})
	r := mustAdmit(t, a, createAttrs(t, "pods", pod("a", nil)))
	if r.Allowed || r.Status.Code != http.StatusConflict {
		t.Fatalf("got %+v, want 409", r.Status)
	}
}

func TestAPIErrorIsNoAnswer(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), rl("pods", "0")))
	a := setup(t, client, false)
	client.PrependReactor("update", "resourcequotas", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("down")
	})
	r, err := a.Admit(context.Background(), createAttrs(t, "pods", pod("a", nil)))
	if err == nil || r != nil {
		t.Fatalf("got %+v, %v; want no result and an error", r, err)
	}
}

func TestMalformedObjectIsBadRequest(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "1"), rl("pods", "0")))
	a := setup(t, client, false)
	attrs := createAttrs(t, "pods", pod("a", nil))
	attrs.Object.Raw = []byte(`{"spec": [`)
	r := mustAdmit(t, a, attrs)
	if r.Allowed || r.Status.Code != http.StatusBadRequest {
		t.Fatalf("got %+v, want 400", r.Status)
	}
}

func TestIgnoredWrites(t *testing.T) {
	client := newClient(quotaObj("q", rl("pods", "0", "count/deployments.apps", "0", "count/events", "0"), nil))
	a := setup(t, client, false)
	cases := map[string]*admission.Attributes{}
	// Events were never quota'd in kube: its plugin lets them through.
	cases["event"] = createAttrs(t, "events", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}})
	del := createAttrs(t, "pods", pod("a", nil))
	del.Operation, del.OldObject, del.Object = admissionv1.Delete, del.Object, runtime.RawExtension{}
	cases["delete"] = del
	status := createAttrs(t, "pods", pod("a", nil))
	status.Operation, status.SubResource, status.OldObject = admissionv1.Update, "status", status.Object
	cases["status"] = status
	cluster := createAttrs(t, "namespaces", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}})
	cluster.Namespace = ""
	cases["cluster-scoped"] = cluster
	cm := createAttrs(t, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	cm.Operation, cm.OldObject = admissionv1.Update, cm.Object
	cases["configmap update"] = cm
	for name, attrs := range cases {
		if r := mustAdmit(t, a, attrs); !r.Allowed {
			t.Errorf("%s denied: %v", name, r.StatusError())
		}
	}
	dep := createAttrs(t, "deployments", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "d"}})
	dep.Resource.Group = "apps"
	if r := mustAdmit(t, a, dep); r.Allowed || !strings.Contains(r.Status.Message, "count/deployments.apps") {
		t.Errorf("deployment create against an unknown-status quota: %+v", r.Status)
	}
}

func TestScopedQuotaCountsOnlyItsPods(t *testing.T) {
	q := quotaObj("besteffort", rl("pods", "0"), rl("pods", "0"))
	q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
	client := newClient(q)
	a := setup(t, client, false)
	if r := mustAdmit(t, a, createAttrs(t, "pods", pod("burstable", rl("cpu", "1")))); !r.Allowed {
		t.Fatalf("pod outside the scope denied: %v", r.StatusError())
	}
	if r := mustAdmit(t, a, createAttrs(t, "pods", pod("besteffort", nil))); r.Allowed {
		t.Fatal("best-effort pod admitted past pods=0")
	}
	if r := mustAdmit(t, a, createAttrs(t, "configmaps", &corev1.ConfigMap{})); !r.Allowed {
		t.Fatalf("configmap denied by a scoped quota: %v", r.StatusError())
	}
}

func TestNewNeedsDeps(t *testing.T) {
	if _, err := New(plugin.Deps{}); !errors.Is(err, admission.ErrInvalidConfig) {
		t.Fatalf("got %v, want ErrInvalidConfig", err)
	}
}

func TestConcurrentCreatesOnTwoReplicasNeverOverAdmit(t *testing.T) {
	client := newClient(quotaObj("q", rl("configmaps", "5"), rl("configmaps", "0")))
	replicas := []admission.Admitter{setup(t, client, false), setup(t, client, false)}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}}
			r, err := replicas[i%2].Admit(context.Background(), createAttrs(t, "configmaps", cm))
			if err != nil {
				t.Error(err)
				return
			}
			if r.Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 5 {
		t.Fatalf("admitted %d creates, want 5", allowed.Load())
	}
	if got := usedOf(t, client, "q")["configmaps"]; got.Value() != 5 {
		t.Fatalf("used %s, want 5", got.String())
	}
}

// An update that brings a pod into a quota's scope (an activeDeadlineSeconds
// makes it Terminating) is charged all it uses to that quota, as kube
// charges it, though it adds nothing to the namespace's usage; an update
// within the scope is charged only its growth.
func TestUpdateIntoScopeChargesFullUsage(t *testing.T) {
	q := quotaObj("terminating", rl("pods", "1", "requests.cpu", "1"), rl("pods", "0", "requests.cpu", "0"))
	q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}
	client := newClient(q)
	a := setup(t, client, false)
	update := func(oldP, newP *corev1.Pod) *admission.Attributes {
		attrs := createAttrs(t, "pods", newP)
		attrs.Operation = admissionv1.Update
		attrs.OldObject = runtime.RawExtension{Object: oldP}
		return attrs
	}
	p := pod("p", rl("cpu", "500m"))
	p.ResourceVersion = "1"
	deadline := int64(60)
	terminating := p.DeepCopy()
	terminating.Spec.ActiveDeadlineSeconds = &deadline
	if r := mustAdmit(t, a, update(p, terminating)); !r.Allowed {
		t.Fatalf("denied: %v", r.StatusError())
	}
	used := usedOf(t, client, "terminating")
	if pods, cpu := used["pods"], used["requests.cpu"]; pods.Value() != 1 || cpu.MilliValue() != 500 {
		t.Fatalf("used after the pod entered the scope: %v", used)
	}
	// Within the scope, an update that changes nothing is not charged again.
	if r := mustAdmit(t, a, update(terminating, terminating)); !r.Allowed {
		t.Fatalf("no-op update denied: %v", r.StatusError())
	}
	if got := usedOf(t, client, "terminating")["pods"]; got.Value() != 1 {
		t.Fatalf("a no-op update was charged: pods %s", got.String())
	}
	// A second pod entering the scope is past pods=1.
	p2, t2 := p.DeepCopy(), terminating.DeepCopy()
	p2.Name, t2.Name = "p2", "p2"
	if r := mustAdmit(t, a, update(p2, t2)); r.Allowed {
		t.Fatal("a second pod entered the Terminating scope past pods=1")
	}
}

// A quota scoped to a VolumeAttributesClass counts the claims of that
// class only, as kube's PVC evaluator matches them (kube's e2e: a second
// gold claim past persistentvolumeclaims=1 is forbidden).
func TestVolumeAttributesClassScope(t *testing.T) {
	q := quotaObj("gold", rl("persistentvolumeclaims", "1", "requests.storage", "5Gi"), rl("persistentvolumeclaims", "0", "requests.storage", "0"))
	q.Spec.ScopeSelector = &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
		ScopeName: corev1.ResourceQuotaScopeVolumeAttributesClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"gold"}}}}
	client := newClient(q)
	a := setup(t, client, false)
	claim := func(name, class string) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS},
			Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "1Gi")}}}
		if class != "" {
			c.Spec.VolumeAttributesClassName = &class
		}
		return c
	}
	for _, c := range []*corev1.PersistentVolumeClaim{claim("silver", "silver"), claim("none", ""), claim("gold-1", "gold")} {
		if r := mustAdmit(t, a, createAttrs(t, "persistentvolumeclaims", c)); !r.Allowed {
			t.Fatalf("%s denied: %v", c.Name, r.StatusError())
		}
	}
	if used := usedOf(t, client, "gold"); used.Name("persistentvolumeclaims", "").Value() != 1 || used.Name("requests.storage", resource.BinarySI).Cmp(resource.MustParse("1Gi")) != 0 {
		t.Fatalf("used %v, want the gold claim alone", used)
	}
	if r := mustAdmit(t, a, createAttrs(t, "persistentvolumeclaims", claim("gold-2", "gold"))); r.Allowed {
		t.Fatal("a second gold claim admitted past persistentvolumeclaims=1")
	}
}

// A ResourceClaim is charged the devices it asks for, per DeviceClass, at
// admission, whatever version it is written in (kube's e2e "capture the
// life of a ResourceClaim" waits for that charge).
func TestResourceClaimDevices(t *testing.T) {
	client := newClient(quotaObj("gpus", rl("gpu.deviceclass.resource.k8s.io/devices", "4"), rl("gpu.deviceclass.resource.k8s.io/devices", "0")))
	a := setup(t, client, false)
	v1beta1Claim := func(name string, n int64) *admission.Attributes {
		c := &resourcev1beta1.ResourceClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1beta1", Kind: "ResourceClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS},
			Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{{
				Name: "req", DeviceClassName: "gpu", AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: n}}}},
		}
		attrs := createAttrs(t, "resourceclaims", c)
		attrs.Resource = metav1.GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims"}
		attrs.Kind = metav1.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceClaim"}
		return attrs
	}
	if r := mustAdmit(t, a, v1beta1Claim("three", 3)); !r.Allowed {
		t.Fatalf("claim of 3 of 4 devices denied: %v", r.StatusError())
	}
	if got := usedOf(t, client, "gpus"); !equal(got, rl("gpu.deviceclass.resource.k8s.io/devices", "3")) {
		t.Fatalf("used %s, want the claim's 3 devices", prettyPrint(got))
	}
	r := mustAdmit(t, a, v1beta1Claim("two", 2))
	if r.Allowed || !strings.Contains(r.StatusError().Error(), "exceeded quota: gpus") {
		t.Fatalf("claim past the quota: allowed=%v %v", r.Allowed, r.StatusError())
	}
	if got := usedOf(t, client, "gpus"); !equal(got, rl("gpu.deviceclass.resource.k8s.io/devices", "3")) {
		t.Fatalf("a refused claim changed usage: %s", prettyPrint(got))
	}
}
