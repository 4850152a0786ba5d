package handler

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// admissionServer is a real admission webhook (pkg/admission's review
// handler on both paths) whose decisions a test sets, recording every review
// it gets as it arrived over the wire.
type admissionServer struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// mutate and validate decide; nil allows.
	mutate, validate func(a *admission.Attributes) *admission.Result
	seen             []seenReview
}

type seenReview struct {
	phase string // "mutating" or "validating"
	attrs admission.Attributes
}

func newAdmissionServer(t *testing.T) *admissionServer {
	s := &admissionServer{t: t}
	mux := http.NewServeMux()
	mux.Handle(admission.MutatingPath, admission.NewAdmissionReviewHandler(admission.Mutating(s.stage("mutating"))))
	mux.Handle(admission.ValidatingPath, admission.NewAdmissionReviewHandler(s.stage("validating")))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *admissionServer) stage(phase string) admission.Admitter {
	return admission.AdmitterFunc(func(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
		s.mu.Lock()
		s.seen = append(s.seen, seenReview{phase, *a})
		decide := s.validate
		if phase == "mutating" {
			decide = s.mutate
		}
		s.mu.Unlock()
		if decide == nil {
			return admission.Allow(), nil
		}
		if res := decide(a); res != nil {
			return res, nil
		}
		return admission.Allow(), nil
	})
}

// set replaces the decisions and forgets the reviews seen so far.
func (s *admissionServer) set(mutate, validate func(a *admission.Attributes) *admission.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mutate, s.validate, s.seen = mutate, validate, nil
}

// reviews are the reviews seen for op in phase.
func (s *admissionServer) reviews(phase string, op admissionv1.Operation) []admission.Attributes {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []admission.Attributes
	for _, r := range s.seen {
		if r.phase == phase && r.attrs.Operation == op {
			out = append(out, r.attrs)
		}
	}
	return out
}

// last is the last review seen for op in phase; the test fails if none.
func (s *admissionServer) last(phase string, op admissionv1.Operation) admission.Attributes {
	s.t.Helper()
	all := s.reviews(phase, op)
	if len(all) == 0 {
		s.t.Fatalf("no %s review for %s", phase, op)
	}
	return all[len(all)-1]
}

// webhookAdmission is the registry's Admission calling url's two paths over
// HTTP, as registry.RemoteAdmission builds it (without the signing).
func webhookAdmission(t *testing.T, url string, timeout time.Duration) Admission {
	t.Helper()
	m, err := admission.NewWebhookClient(admission.WebhookConfig{URL: url + admission.MutatingPath, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	v, err := admission.NewWebhookClient(admission.WebhookConfig{URL: url + admission.ValidatingPath, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return Admission{Mutating: admission.Mutating(m), Validating: v}
}

// newAdmissionEnv is an env whose writes go through an admission server.
func newAdmissionEnv(t *testing.T) (*env, *admissionServer) {
	t.Helper()
	s := newAdmissionServer(t)
	return newEnvWith(t, webhookAdmission(t, s.srv.URL, 0)), s
}

// objectOf decodes an admission object.
func objectOf(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("admission object is not JSON: %v: %s", err, raw)
	}
	return m
}

// addLabel is a mutating decision adding a label with a JSON patch.
func addLabel(key, value string) func(a *admission.Attributes) *admission.Result {
	return func(a *admission.Attributes) *admission.Result {
		if a.Operation == admissionv1.Delete {
			return nil
		}
		var obj struct {
			Metadata struct{ Labels map[string]string }
		}
		_ = json.Unmarshal(a.Object.Raw, &obj)
		patch := `[{"op":"add","path":"/metadata/labels/` + key + `","value":"` + value + `"}]`
		if obj.Metadata.Labels == nil {
			patch = `[{"op":"add","path":"/metadata/labels","value":{"` + key + `":"` + value + `"}}]`
		}
		return &admission.Result{Allowed: true, Patch: []byte(patch)}
	}
}

// jsonMap decodes JSON, nil when it is not an object; for decisions, which
// run on the admission server's goroutines where a test cannot fail.
func jsonMap(raw []byte) map[string]any {
	m := map[string]any{}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
