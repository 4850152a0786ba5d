package webhooks

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// labelsOf are the labels of a review's object.
func labelsOf(req *admissionv1.AdmissionRequest) map[string]string {
	var m metav1.PartialObjectMetadata
	_ = json.Unmarshal(req.Object.Raw, &m)
	return m.Labels
}

// Mutating webhooks run one after the other, configurations by name: each
// sees the object as patched before it, and the answer carries every
// patch, warning and audit annotation.
func TestMutatingInOrder(t *testing.T) {
	first := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		res := patching(`[{"op":"add","path":"/metadata/labels","value":{"first":"yes"}}]`)(req)
		res.Warnings, res.AuditAnnotations = []string{"first was here"}, map[string]string{"saw": "nothing"}
		return res
	})
	second := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		res := patching(`[{"op":"add","path":"/metadata/labels/second","value":"after-` + labelsOf(req)["first"] + `"}]`)(req)
		res.Warnings = []string{"second was here"}
		return res
	})
	// Listed out of order: configurations run by name.
	m, _ := startMutating(t, mutatingConfig("b", mutatingHook("second.example.com", second)),
		mutatingConfig("a", mutatingHook("first.example.com", first)))
	attrs := podCreate(t, "prod", nil)
	res := plugintest.Admit(t, m, attrs)
	if !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	var pod corev1.Pod
	plugintest.Patched(t, attrs, res, &pod)
	if pod.Labels["first"] != "yes" || pod.Labels["second"] != "after-yes" {
		t.Errorf("labels %v", pod.Labels)
	}
	if strings.Join(res.Warnings, ";") != "first was here;second was here" {
		t.Errorf("warnings %q", res.Warnings)
	}
	if res.AuditAnnotations["first.example.com/saw"] != "nothing" ||
		!strings.Contains(res.AuditAnnotations["mutation.webhook.admission.k8s.io/round_0_index_1"], `"mutated":true`) {
		t.Errorf("audit annotations %v", res.AuditAnnotations)
	}
}

// A webhook with reinvocationPolicy IfNeeded is called once more when a
// later webhook changed the object; one without it is not.
func TestReinvocation(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	watcher := func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, labelsOf(req)["later"])
		return allow(req)
	}
	reinvoked, once := newServer(t, watcher), newServer(t, watcher)
	changer := newServer(t, patching(`[{"op":"add","path":"/metadata/labels","value":{"later":"changed"}}]`))
	h1 := mutatingHook("reinvoked.example.com", reinvoked)
	h1.ReinvocationPolicy = &ifNeeded
	h2 := mutatingHook("once.example.com", once)
	m, _ := startMutating(t, mutatingConfig("a", h1, h2, mutatingHook("changer.example.com", changer)))
	res := plugintest.Admit(t, m, podCreate(t, "prod", nil))
	if !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	if reinvoked.calls.Load() != 2 || once.calls.Load() != 1 || changer.calls.Load() != 1 {
		t.Fatalf("calls: reinvoked %d, once %d, changer %d", reinvoked.calls.Load(), once.calls.Load(), changer.calls.Load())
	}
	// Calls 1 and 2 see the object before the change, the reinvocation
	// after it.
	mu.Lock()
	if strings.Join(seen, ",") != ",,changed" {
		t.Errorf("labels seen %q", seen)
	}
	mu.Unlock()

	// Nothing changes after it: no second call.
	reinvoked.calls.Store(0)
	m, _ = startMutating(t, mutatingConfig("a", h1))
	plugintest.Admit(t, m, podCreate(t, "prod", nil))
	if n := reinvoked.calls.Load(); n != 1 {
		t.Errorf("%d calls without a later change, want 1", n)
	}
}

// A patch that does not apply is an internal error, whatever the failure
// policy: the webhook answered.
func TestMutatingBadPatch(t *testing.T) {
	srv := newServer(t, patching(`[{"op":"remove","path":"/spec/nothing"}]`))
	h := mutatingHook("bad.example.com", srv)
	h.FailurePolicy = &ignore
	m, _ := startMutating(t, mutatingConfig("a", h))
	res := plugintest.Admit(t, m, podCreate(t, "prod", nil))
	if res.Allowed || res.Status.Code != 500 || !strings.Contains(res.Status.Message, `"bad.example.com"`) {
		t.Fatalf("got %+v", res)
	}
}
