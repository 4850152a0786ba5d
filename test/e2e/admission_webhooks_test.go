package e2e

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// webhookEffect bounds how long a webhook configuration takes to apply:
// the admission service's informer sees it at once, and the registry
// never uses admission's rules for longer than a second.
const webhookEffect = time.Second

// TestAdmissionWebhooks runs mutating and validating webhooks of the
// test's own, served over TLS with a CA of their own and reached by URL,
// behind webhook configurations created through the split stack, and
// drives them with kubectl and client-go.
func TestAdmissionWebhooks(t *testing.T) {
	s := startAdmissionStack(t)
	hooks := startWebhookServer(t)
	admin := s.Client(t, s.AdminToken)
	kc := s.Aggregator.Kubeconfig(t, "webhook-admin", s.AdminToken)
	kubectl := func(t *testing.T, stdin string, args ...string) (string, error) {
		t.Helper()
		return s.Aggregator.Kubectl(t, kc, stdin, args...)
	}
	t.Run("MutateAndDeny", func(t *testing.T) { testWebhookMutateAndDeny(t, admin, kubectl, hooks) })
	t.Run("FailurePolicy", func(t *testing.T) { testWebhookFailurePolicy(t, admin, kubectl, hooks) })
	t.Run("ChangeTakesEffect", func(t *testing.T) { testWebhookChange(t, admin, hooks) })
}

// webhookServer is the test's webhooks, one path each.
type webhookServer struct {
	url      string
	caBundle []byte
	// seen are the requests /record/<key> was sent, by key and kind.
	mu   sync.Mutex
	seen map[string]*admissionv1.AdmissionRequest
}

// recorded is the last request /record/<key> was sent about kind.
func (w *webhookServer) recorded(key, kind string) *admissionv1.AdmissionRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[key+"/"+kind]
}

// startWebhookServer serves, over TLS with a certificate of a CA of the
// test's own:
//
//	/mutate  adds the label mutated-by=e2e-webhook, with a warning;
//	/deny    refuses config maps holding the key "forbidden", warning too;
//	/hang    never answers (until the caller gives up);
//	/record/<key>  mutates as /mutate does and keeps what it was sent.
func startWebhookServer(t *testing.T) *webhookServer {
	t.Helper()
	ca := framework.NewCertAuthority(t, "e2e-webhooks")
	certFile, keyFile := ca.Serving(t)
	hooks := &webhookServer{seen: map[string]*admissionv1.AdmissionRequest{}}
	mux := http.NewServeMux()
	label := func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		pt := admissionv1.PatchTypeJSONPatch
		patch := `[{"op":"add","path":"/metadata/labels","value":{"mutated-by":"e2e-webhook"}}]`
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(patch), PatchType: &pt, Warnings: []string{"labelled by the e2e webhook"}}
	}
	mux.HandleFunc("/mutate", reviewing(label))
	mux.HandleFunc("/record/{key}", func(w http.ResponseWriter, r *http.Request) {
		reviewing(func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			hooks.mu.Lock()
			hooks.seen[r.PathValue("key")+"/"+req.Kind.Kind] = req
			hooks.mu.Unlock()
			return label(req)
		})(w, r)
	})
	mux.HandleFunc("/deny", reviewing(func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var cm corev1.ConfigMap
		_ = json.Unmarshal(req.Object.Raw, &cm)
		if _, bad := cm.Data["forbidden"]; bad {
			return &admissionv1.AdmissionResponse{Warnings: []string{"config maps are watched"},
				Result: &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "the key forbidden is not allowed"}}
		}
		return &admissionv1.AdmissionResponse{Allowed: true}
	}))
	mux.HandleFunc("/hang", func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server sees the caller leave only once the body is read
		<-r.Context().Done()
	})
	srv := httptest.NewUnstartedServer(mux)
	cert, err := tlsKeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv.TLS = cert
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caPEM, err := os.ReadFile(ca.File(t))
	if err != nil {
		t.Fatal(err)
	}
	hooks.url, hooks.caBundle = srv.URL, caPEM
	return hooks
}

// reviewing serves AdmissionReviews with respond.
func reviewing(respond func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		resp := respond(review.Request)
		resp.UID = review.Request.UID
		review.Request, review.Response = nil, resp
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}
}

// clientConfig reaches path on the test's server, trusting its CA.
func (w *webhookServer) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := w.url + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: w.caBundle}
}

// webhookNamespace creates a namespace labelled webhook-test=<name>, which
// one subtest's webhooks select, so that each applies to its subtest only.
func webhookNamespace(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"webhook-test": name}}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx(t), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// configMapRules are webhook rules for creating and updating config maps.
func configMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
}

// validatingWebhook is a webhook on config maps in namespace ns calling
// path with policy.
func (w *webhookServer) validatingWebhook(name, path, ns string, policy admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(1)
	return admissionregistrationv1.ValidatingWebhook{
		Name: name, ClientConfig: w.clientConfig(path), Rules: configMapRules(),
		FailurePolicy: &policy, SideEffects: &none, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"webhook-test": ns}},
	}
}

func createValidating(t *testing.T, admin kubernetes.Interface, name string, hooks ...admissionregistrationv1.ValidatingWebhook) {
	t.Helper()
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}
	if _, err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx(t), cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx(t), name, metav1.DeleteOptions{})
	})
}

func webhookConfigMapYAML(ns, name, data string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\ndata: {%s}\n", name, ns, data)
}

// A mutating webhook's patch is stored and its warning shown; a validating
// webhook's denial reaches kubectl as kube words it, with its warning.
func testWebhookMutateAndDeny(t *testing.T, admin kubernetes.Interface, kubectl stdinKubectl, hooks *webhookServer) {
	const ns = "webhook-mutate"
	webhookNamespace(t, admin, ns)
	none := admissionregistrationv1.SideEffectClassNone
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-mutating"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mutate.e2e.kubesplit.io", ClientConfig: hooks.clientConfig("/mutate"), Rules: configMapRules(),
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"webhook-test": ns}},
		}},
	}
	if _, err := admin.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx(t), mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx(t), "e2e-mutating", metav1.DeleteOptions{})
	})
	createValidating(t, admin, "e2e-deny", hooks.validatingWebhook("deny.e2e.kubesplit.io", "/deny", ns, admissionregistrationv1.Fail))

	polltest.Until(t, 10*webhookEffect, "the webhooks to apply", func() bool {
		_, err := kubectl(t, webhookConfigMapYAML(ns, "bad", "forbidden: x"), "create", "-f", "-", "--dry-run=server")
		return err != nil
	})
	out, err := kubectl(t, webhookConfigMapYAML(ns, "bad", "forbidden: x"), "create", "-f", "-")
	if err == nil || !strings.Contains(out, `admission webhook "deny.e2e.kubesplit.io" denied the request: the key forbidden is not allowed`) ||
		!strings.Contains(out, "Warning: config maps are watched") || !strings.Contains(out, "Warning: labelled by the e2e webhook") {
		t.Fatalf("kubectl create of a refused config map printed:\n%s", out)
	}
	out, err = kubectl(t, webhookConfigMapYAML(ns, "good", "fine: x"), "create", "-f", "-")
	if err != nil || !strings.Contains(out, "Warning: labelled by the e2e webhook") {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	cm, err := admin.CoreV1().ConfigMaps(ns).Get(ctx(t), "good", metav1.GetOptions{})
	if err != nil || cm.Labels["mutated-by"] != "e2e-webhook" {
		t.Fatalf("stored config map %+v, %v: want the webhook's label", cm, err)
	}
	if _, err := admin.CoreV1().ConfigMaps(ns).Get(ctx(t), "bad", metav1.GetOptions{}); err == nil {
		t.Error("the refused config map was stored")
	}
}

// A webhook that cannot be reached, or times out, refuses the write under
// failurePolicy Fail and is skipped under Ignore.
func testWebhookFailurePolicy(t *testing.T, admin kubernetes.Interface, kubectl stdinKubectl, hooks *webhookServer) {
	closed := httptest.NewTLSServer(http.NotFoundHandler())
	closed.Close()
	down := &webhookServer{url: closed.URL, caBundle: hooks.caBundle}
	cases := []struct {
		name, reason string
		hooks        *webhookServer
		path         string
	}{
		{"unreachable", "connection refused", down, "/"},
		{"timeout", "deadline exceeded", hooks, "/hang"},
	}
	for _, c := range cases {
		for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
			name := fmt.Sprintf("webhook-%s-%s", c.name, strings.ToLower(string(policy)))
			t.Run(name, func(t *testing.T) {
				webhookNamespace(t, admin, name)
				flaky := c.hooks.validatingWebhook(c.name+".e2e.kubesplit.io", c.path, name, policy)
				if policy == admissionregistrationv1.Ignore {
					// The deny webhook, in the same configuration, shows
					// when the configuration applies.
					createValidating(t, admin, name, flaky, hooks.validatingWebhook("deny.e2e.kubesplit.io", "/deny", name, admissionregistrationv1.Fail))
					polltest.Until(t, 10*webhookEffect, "the configuration to apply", func() bool {
						_, err := kubectl(t, webhookConfigMapYAML(name, "bad", "forbidden: x"), "create", "-f", "-", "--dry-run=server")
						return err != nil
					})
					out, err := kubectl(t, webhookConfigMapYAML(name, "cm", "a: b"), "create", "-f", "-")
					if err != nil {
						t.Fatalf("failurePolicy Ignore refused the write: %v\n%s", err, out)
					}
					return
				}
				createValidating(t, admin, name, flaky)
				var out string
				polltest.Until(t, 10*webhookEffect, "the webhook to apply", func() bool {
					var err error
					out, err = kubectl(t, webhookConfigMapYAML(name, "cm", "a: b"), "create", "-f", "-", "--dry-run=server")
					return err != nil
				})
				if !strings.Contains(out, "Internal error occurred: failed calling webhook \""+c.name+".e2e.kubesplit.io\"") || !strings.Contains(out, c.reason) {
					t.Fatalf("kubectl create printed:\n%s\nwant the failed call (%s)", out, c.reason)
				}
			})
		}
	}
}

// A configuration created or deleted applies to writes within a second,
// without restarting anything. The webhook is about secrets, which neither
// a built-in plugin nor another subtest's webhook asks about: until the
// registry has admission's new rules, it does not ask admission at all.
func testWebhookChange(t *testing.T, admin kubernetes.Interface, hooks *webhookServer) {
	const ns = "webhook-change"
	webhookNamespace(t, admin, ns)
	bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string][]byte{"forbidden": []byte("x")}}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	refused := func() bool {
		_, err := admin.CoreV1().Secrets(ns).Create(ctx(t), bad, dryRun)
		return err != nil && strings.Contains(err.Error(), `admission webhook "change.e2e.kubesplit.io" denied the request`)
	}
	// A write just before: the registry's rules are fresh, and say
	// nothing about secrets.
	if refused() {
		t.Fatal("refused before any webhook was configured")
	}
	hook := hooks.validatingWebhook("change.e2e.kubesplit.io", "/deny", ns, admissionregistrationv1.Fail)
	hook.Rules[0].Resources = []string{"secrets"}
	start := time.Now()
	createValidating(t, admin, "e2e-change", hook)
	polltest.Until(t, 10*webhookEffect, "the new webhook to refuse", refused)
	took := time.Since(start)
	t.Logf("the new webhook applied after %v", took)
	if took > webhookEffect+500*time.Millisecond {
		t.Errorf("the new webhook refused writes after %v, want within %v", took, webhookEffect)
	}

	start = time.Now()
	if err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx(t), "e2e-change", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*webhookEffect, "the deleted webhook to stop refusing", func() bool { return !refused() })
	if took := time.Since(start); took > webhookEffect+500*time.Millisecond {
		t.Errorf("the deleted webhook stopped after %v, want within %v", took, webhookEffect)
	}
}

// tlsKeyPair is a server TLS configuration with the certificate and key
// in these files.
func tlsKeyPair(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
}
