package admission

import (
	"context"
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
	"k8s.io/client-go/kubernetes/fake"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/testpki"
	"github.com/kubesplit/kubesplit/services/admission/internal/serviceaccount"
)

// sidecarWebhook is a mutating webhook configuration whose webhook adds a
// container to every pod created, and the number of times it was called.
func sidecarWebhook(t *testing.T) (*admissionregistrationv1.MutatingWebhookConfiguration, *atomic.Int32) {
	t.Helper()
	ca := testpki.New(t, "sidecar webhook CA")
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		pt := admissionv1.PatchTypeJSONPatch
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true, PatchType: &pt,
			Patch: []byte(`[{"op":"add","path":"/spec/containers/-","value":{"name":"sidecar","image":"proxy"}}]`)}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(&review)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.ServingCert(t)}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "sidecar"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "sidecar.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &srv.URL, CABundle: ca.PEM()},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}, &calls
}

// A webhook's change has the mutating chain run again, as kube-apiserver
// runs it: the built-in plugins see the container the webhook added (the
// ServiceAccount plugin mounts the account's token in it as in the pod's
// own), and the webhook, whose reinvocationPolicy is Never, is not asked
// again.
func TestWebhookChangeRunsThePluginsAgain(t *testing.T) {
	config, calls := sidecarWebhook(t)
	cfg := Config{InsecureAllowUnauthenticated: true}
	cfg.Client = fake.NewClientset(append(cluster(), config)...)
	s := start(t, cfg)
	a := podCreate(t, "ns")
	res, err := s.Local().Mutating().Admit(context.Background(), a)
	if err != nil || !res.Allowed {
		t.Fatalf("admit: %v %+v", err, res)
	}
	patched, err := pkgadmission.ApplyPatch(a.Object.Raw, res.Patch)
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(patched, &pod); err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Containers) != 2 {
		t.Fatalf("containers %+v", pod.Spec.Containers)
	}
	for _, c := range pod.Spec.Containers {
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || m.MountPath == serviceaccount.TokenMountPath
		}
		if !mounted {
			t.Errorf("container %s has no token mounted: %+v", c.Name, c.VolumeMounts)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the webhook was called %d times, want 1", n)
	}
}
