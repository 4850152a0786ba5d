package webhooks

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// A denial is worded as kube words it; the warnings and audit annotations
// of every webhook asked come back with it.
func TestValidatingDenial(t *testing.T) {
	deny := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{
			Result:   &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "no pods here"},
			Warnings: []string{"pods are frowned upon"}, AuditAnnotations: map[string]string{"why": "pods"},
		}
	})
	warn := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{"fine by me"}}
	})
	bare := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{}
	})
	v, _ := startValidating(t, validatingConfig("a", validatingHook("deny.example.com", deny), validatingHook("warn.example.com", warn)))
	res := plugintest.Admit(t, v, podCreate(t, "prod", nil))
	if res.Allowed || res.Status.Code != http.StatusForbidden ||
		res.Status.Message != `admission webhook "deny.example.com" denied the request: no pods here` {
		t.Fatalf("got %+v", res.Status)
	}
	if strings.Join(res.Warnings, ";") != "pods are frowned upon;fine by me" || res.AuditAnnotations["deny.example.com/why"] != "pods" {
		t.Errorf("warnings %q, annotations %v", res.Warnings, res.AuditAnnotations)
	}

	v, _ = startValidating(t, validatingConfig("a", validatingHook("bare.example.com", bare)))
	res = plugintest.Admit(t, v, podCreate(t, "prod", nil))
	if res.Allowed || res.Status.Code != http.StatusBadRequest ||
		res.Status.Message != `admission webhook "bare.example.com" denied the request without explanation` {
		t.Fatalf("denial without a status: %+v", res.Status)
	}
}

// Validating webhooks are called all at once: each of these answers only
// once the other was called too.
func TestValidatingParallel(t *testing.T) {
	var arrived atomic.Int32
	both := make(chan struct{})
	meet := func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return &admissionv1.AdmissionResponse{Allowed: true}
		case <-time.After(5 * time.Second):
			return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "called alone"}}
		}
	}
	v, _ := startValidating(t, validatingConfig("a", validatingHook("one.example.com", newServer(t, meet)), validatingHook("two.example.com", newServer(t, meet))))
	if res := plugintest.Admit(t, v, podCreate(t, "prod", nil)); !res.Allowed {
		t.Fatalf("got %+v", res.Status)
	}
}

// Every way of failing to get an answer is an internal error under
// failurePolicy Fail, and is ignored (with kube's audit annotation) under
// Ignore.
func TestFailurePolicy(t *testing.T) {
	closed := newServer(t, allow)
	closed.srv.Close()
	// Port 1 (tcpmux) has no listener: a closed server's own port may be
	// handed to the next test server, which would answer.
	closed.srv.URL = "https://127.0.0.1:1"
	other := newServer(t, allow)
	cases := []struct {
		name   string
		server *server
		tweak  func(*server, *admissionregistrationv1.ValidatingWebhook)
		reason string
	}{
		{"unreachable", closed, nil, "connect"},
		{"times out", answering(t, func(_ http.ResponseWriter, r *http.Request) {
			// Read the review first: the server notices the client gone
			// only once the body is consumed.
			_, _ = io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}),
			func(_ *server, h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr(int32(1)) }, "deadline exceeded"},
		{"wrong CA", newServer(t, allow), func(_ *server, h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig.CABundle = other.caBundle()
		}, "certificate"},
		{"no CA at all", newServer(t, allow), func(_ *server, h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig.CABundle = []byte("not PEM")
		}, "caBundle"},
		{"not a review", answering(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`<html>`)) }), nil, "malformed"},
		{"oversized", newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{strings.Repeat("x", admission.MaxReviewBytes)}}
		}), nil, "larger than"},
		{"patch from a validating webhook", newServer(t, patching(`[{"op":"add","path":"/metadata/labels","value":{}}]`)), nil, "may not return response.patch"},
		{"only v1beta1", newServer(t, allow), func(_ *server, h *admissionregistrationv1.ValidatingWebhook) {
			h.AdmissionReviewVersions = []string{"v1beta1"}
		}, "v1 AdmissionReview"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := c.server
			for _, policy := range []*admissionregistrationv1.FailurePolicyType{&fail, &ignore} {
				h := validatingHook("flaky.example.com", srv)
				h.FailurePolicy = policy
				if c.tweak != nil {
					c.tweak(srv, &h)
				}
				v, _ := startValidating(t, validatingConfig("a", h))
				res := plugintest.Admit(t, v, podCreate(t, "prod", nil))
				if *policy == ignore {
					if !res.Allowed || res.AuditAnnotations["failed-open.validating.webhook.admission.k8s.io/round_0_index_0"] != "flaky.example.com" {
						t.Errorf("Ignore: %+v", res)
					}
					continue
				}
				if res.Allowed || res.Status.Code != http.StatusInternalServerError ||
					!strings.Contains(res.Status.Message, `failed calling webhook "flaky.example.com"`) ||
					!strings.Contains(res.Status.Message, c.reason) {
					t.Errorf("Fail: %+v, want a 500 saying %q", res.Status, c.reason)
				}
			}
		})
	}
}

// A dry run is refused when a webhook it would call may have side effects,
// and sent to one that declares none.
func TestDryRun(t *testing.T) {
	srv := newServer(t, allow)
	risky := validatingHook("risky.example.com", srv)
	risky.SideEffects = &unknown
	v, _ := startValidating(t, validatingConfig("a", risky))
	dry := podCreate(t, "prod", nil)
	dry.DryRun = true
	res := plugintest.Admit(t, v, dry)
	if res.Allowed || res.Status.Code != http.StatusBadRequest ||
		!strings.Contains(res.Status.Message, `admission webhook "risky.example.com" does not support dry run`) || srv.calls.Load() != 0 {
		t.Fatalf("got %+v, %d calls", res.Status, srv.calls.Load())
	}
	v, _ = startValidating(t, validatingConfig("a", validatingHook("safe.example.com", srv)))
	if res := plugintest.Admit(t, v, dry); !res.Allowed || srv.calls.Load() != 1 || !*srv.last.Load().DryRun {
		t.Fatalf("got %+v, %d calls", res.Status, srv.calls.Load())
	}
}

// answering is a TLS webhook server answering with h, whatever is asked.
func answering(t *testing.T, h http.HandlerFunc) *server {
	s := newServer(t, allow)
	s.srv.Config.Handler = h
	return s
}
