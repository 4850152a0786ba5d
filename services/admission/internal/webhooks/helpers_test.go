package webhooks

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/testpki"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// server is a real TLS AdmissionReview webhook whose certificate is
// signed by a CA of its own, which the configurations carry in caBundle.
type server struct {
	srv   *httptest.Server
	ca    *testpki.CA
	calls atomic.Int32
	last  atomic.Pointer[admissionv1.AdmissionRequest]
}

// newServer answers each review with respond's response (its uid set).
func newServer(t *testing.T, respond func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *server {
	t.Helper()
	s := &server{ca: testpki.New(t, "webhook test CA")}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		s.calls.Add(1)
		s.last.Store(review.Request)
		resp := respond(review.Request)
		if resp == nil { // the handler gave up (a request that timed out)
			return
		}
		resp.UID = review.Request.UID
		review.Request, review.Response = nil, resp
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}))
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{s.ca.ServingCert(t)}}
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) caBundle() []byte { return s.ca.PEM() }

// clientConfig reaches s by URL, trusting its CA.
func (s *server) clientConfig() admissionregistrationv1.WebhookClientConfig {
	u := s.srv.URL + "/review"
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: s.caBundle()}
}

func allow(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// patching answers with a JSON patch.
func patching(patch string) func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		pt := admissionv1.PatchTypeJSONPatch
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(patch), PatchType: &pt}
	}
}

var (
	none     = admissionregistrationv1.SideEffectClassNone
	unknown  = admissionregistrationv1.SideEffectClassUnknown
	fail     = admissionregistrationv1.Fail
	ignore   = admissionregistrationv1.Ignore
	exact    = admissionregistrationv1.Exact
	ifNeeded = admissionregistrationv1.IfNeededReinvocationPolicy
)

// podsCreate is a new rule for pod creation each time, which tests may
// change.
func podsCreate() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	}}
}

func ptr[T any](v T) *T { return &v }

// validatingHook is a validating webhook about pod creation calling s.
func validatingHook(name string, s *server) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name: name, ClientConfig: s.clientConfig(), Rules: podsCreate(),
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
	}
}

// mutatingHook is a mutating webhook about pod creation calling s.
func mutatingHook(name string, s *server) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: name, ClientConfig: s.clientConfig(), Rules: podsCreate(),
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
	}
}

func validatingConfig(name string, hooks ...admissionregistrationv1.ValidatingWebhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name)}, Webhooks: hooks}
}

func mutatingConfig(name string, hooks ...admissionregistrationv1.MutatingWebhook) *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name)}, Webhooks: hooks}
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// startValidating is the ValidatingAdmissionWebhook plugin over objs.
func startValidating(t *testing.T, objs ...runtime.Object) (*Validating, *fake.Clientset) {
	t.Helper()
	deps, client := plugintest.Deps(t, objs...)
	a, err := NewValidating(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	return a.(*Validating), client
}

// startMutating is the MutatingAdmissionWebhook plugin over objs.
func startMutating(t *testing.T, objs ...runtime.Object) (*Mutating, *fake.Clientset) {
	t.Helper()
	deps, client := plugintest.Deps(t, objs...)
	m, _, err := NewMutatingPhases(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	return m.(*Mutating), client
}

// podCreate is the creation of a pod named name in ns with labels.
func podCreate(t *testing.T, ns string, labels map[string]string) *admission.Attributes {
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
	}
	a := plugintest.Attrs(t, admissionv1.Create, "", "v1", "Pod", "pods", ns, "p", pod, nil)
	a.RequestKind, a.RequestResource = a.Kind, a.Resource
	a.UserInfo.Username = "bob"
	return a
}
