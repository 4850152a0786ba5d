package webhooks

import (
	"encoding/json"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// discover has client's discovery say what kube-apiserver's says of
// HorizontalPodAutoscalers (two versions, one storage) and Events (two
// groups, one storage).
func discover(client *fake.Clientset) {
	client.Resources = []*metav1.APIResourceList{
		{GroupVersion: "autoscaling/v1", APIResources: []metav1.APIResource{{Name: "horizontalpodautoscalers", Namespaced: true, Kind: "HorizontalPodAutoscaler", StorageVersionHash: "hpa"}}},
		{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{{Name: "horizontalpodautoscalers", Namespaced: true, Kind: "HorizontalPodAutoscaler", StorageVersionHash: "hpa"}}},
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "events", Namespaced: true, Kind: "Event", StorageVersionHash: "ev"}}},
		{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "events", Namespaced: true, Kind: "Event", StorageVersionHash: "ev"}}},
	}
}

func createRule(group, version, resource string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
	}}
}

// A webhook on autoscaling/v2 HorizontalPodAutoscalers is sent a write
// through autoscaling/v1 as kube sends it under matchPolicy Equivalent:
// converted to v2 (the v1 CPU target become a v2 metric), with the v1 the
// client asked for in requestKind; under Exact it is not asked.
func TestEquivalentConverted(t *testing.T) {
	equivalent := newServer(t, allow)
	exactServer := newServer(t, allow)
	hook := validatingHook("v2.example.com", equivalent)
	hook.Rules = createRule("autoscaling", "v2", "horizontalpodautoscalers")
	exactHook := validatingHook("exact.example.com", exactServer)
	exactHook.Rules, exactHook.MatchPolicy = hook.Rules, &exact
	v, client := startValidating(t, validatingConfig("hpa", hook, exactHook))
	discover(client)

	hpa := map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "h", "namespace": "prod"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
			"maxReplicas": 5, "targetCPUUtilizationPercentage": 50},
	}
	a := plugintest.Attrs(t, admissionv1.Create, "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "prod", "h", hpa, nil)
	a.RequestKind, a.RequestResource = a.Kind, a.Resource
	if res := plugintest.Admit(t, v, a); !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	if exactServer.calls.Load() != 0 {
		t.Error("the Exact webhook on v2 was asked about a v1 write")
	}
	req := equivalent.last.Load()
	if req == nil {
		t.Fatal("the Equivalent webhook on v2 was not asked about a v1 write")
	}
	v1 := metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	v2 := metav1.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	if req.Kind != v2 || req.Resource.Version != "v2" || *req.RequestKind != v1 || req.RequestResource.Version != "v1" {
		t.Errorf("kind %v resource %v, request kind %v resource %v", req.Kind, req.Resource, req.RequestKind, req.RequestResource)
	}
	var sent autoscalingv2.HorizontalPodAutoscaler
	if err := json.Unmarshal(req.Object.Raw, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.APIVersion != "autoscaling/v2" || len(sent.Spec.Metrics) != 1 || sent.Spec.Metrics[0].Resource == nil ||
		*sent.Spec.Metrics[0].Resource.Target.AverageUtilization != 50 || sent.Spec.MaxReplicas != 5 {
		t.Errorf("sent %s", req.Object.Raw)
	}
}

// A mutating webhook on events.k8s.io Events patches a core/v1 Event as
// kube has it do: its patch of the events.k8s.io Event it was sent comes
// back as a change of the core one, and nothing else changes.
func TestEquivalentPatchedBack(t *testing.T) {
	var saw eventsv1.Event
	srv := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		_ = json.Unmarshal(req.Object.Raw, &saw)
		return patching(`[{"op":"replace","path":"/note","value":"patched"}]`)(req)
	})
	hook := mutatingHook("events.example.com", srv)
	hook.Rules = createRule("events.k8s.io", "v1", "events")
	m, client := startMutating(t, mutatingConfig("events", hook))
	discover(client)

	event := &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "prod"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "prod"},
		Reason:         "Started", Message: "original", Type: corev1.EventTypeNormal,
	}
	a := plugintest.Attrs(t, admissionv1.Create, "", "v1", "Event", "events", "prod", "e", event, nil)
	res := plugintest.Admit(t, m, a)
	if !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	if saw.APIVersion != "events.k8s.io/v1" || saw.Note != "original" || saw.Regarding.Name != "p" {
		t.Errorf("the webhook saw %+v", saw)
	}
	var got, want map[string]any
	plugintest.Patched(t, a, res, &got)
	if err := json.Unmarshal(a.Object.Raw, &want); err != nil {
		t.Fatal(err)
	}
	want["message"] = "patched"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("patched to %v, want %v (patch %s)", got, want, res.Patch)
	}
}

// A resource kube's scheme does not know and no CRD can be found for is
// matched in any version under Equivalent and sent as it is.
func TestEquivalentCustomResourceUnconverted(t *testing.T) {
	srv := newServer(t, allow)
	hook := validatingHook("gadgets.example.com", srv)
	hook.Rules = createRule("example.com", "v2", "gadgets")
	v, client := startValidating(t, validatingConfig("gadgets", hook))
	discover(client)
	gadget := map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": "prod"}}
	a := plugintest.Attrs(t, admissionv1.Create, "example.com", "v1", "Gadget", "gadgets", "prod", "g", gadget, nil)
	plugintest.Admit(t, v, a)
	req := srv.last.Load()
	if req == nil || req.Kind != (metav1.GroupVersionKind(a.Kind)) || string(req.Object.Raw) != string(a.Object.Raw) {
		t.Errorf("sent %+v", req)
	}
}
