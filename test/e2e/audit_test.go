package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// auditPolicy audits config maps with their bodies, secrets as asked for
// at RequestResponse (which the aggregator caps at Metadata), and
// everything else at Metadata, but never health checks.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: [configmaps, secrets]
- level: Metadata
`

const (
	auditReaderToken = "audit-reader-token-0123456789"
	auditSecretValue = "c3VwZXItc2VjcmV0LXZhbHVl"
)

// auditEvent is what the test reads of an audit.k8s.io/v1 Event.
type auditEvent struct {
	Level      string `json:"level"`
	Stage      string `json:"stage"`
	AuditID    string `json:"auditID"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"responseStatus"`
	RequestObject json.RawMessage   `json:"requestObject"`
	Annotations   map[string]string `json:"annotations"`
}

func readAudit(t *testing.T, path string) []auditEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []auditEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

// findAudit waits for the event of a request the predicate picks.
func findAudit(t *testing.T, path, what string, pick func(auditEvent) bool) auditEvent {
	t.Helper()
	var found auditEvent
	polltest.Until(t, 5*time.Second, what, func() bool {
		for _, ev := range readAudit(t, path) {
			if pick(ev) {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// The aggregator's audit log holds allowed, denied and failed requests at
// the policy's levels, with users, decisions and codes, and never a token
// or a secret's data.
func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	logPath, policyPath := filepath.Join(dir, "audit.log"), filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyPath, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartStack(t, framework.StackOptions{
		Args:  map[string][]string{"aggregator": {"--audit-log-path", logPath, "--audit-policy-file", policyPath}},
		Users: []string{auditReaderToken + `,reader,uid-reader,"readers"`},
	})
	admin := s.Client(t, s.AdminToken)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audited"}, Data: map[string]string{"color": "blue"}}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx(t), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "audited"}, Data: map[string][]byte{"password": []byte("super-secret-value")}}
	if _, err := admin.CoreV1().Secrets("default").Create(ctx(t), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reader := s.Client(t, auditReaderToken)
	if _, err := reader.CoreV1().ConfigMaps("default").Get(ctx(t), "audited", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("reader get: %v, want Forbidden", err)
	}
	bad := kubernetes.NewForConfigOrDie(s.RESTConfig(t, "not-a-token-0123456789"))
	if _, err := bad.CoreV1().Namespaces().List(ctx(t), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Fatalf("bad token: %v, want Unauthorized", err)
	}

	created := findAudit(t, logPath, "the config map create", func(ev auditEvent) bool {
		return ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "configmaps"
	})
	if created.Level != "RequestResponse" || created.Stage != "ResponseComplete" || created.User.Username != "admin" ||
		created.ResponseStatus.Code != 201 || !strings.Contains(string(created.RequestObject), `"color":"blue"`) {
		t.Errorf("config map create event %+v", created)
	}
	secretEv := findAudit(t, logPath, "the secret create", func(ev auditEvent) bool {
		return ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "secrets"
	})
	if secretEv.Level != "Metadata" || secretEv.RequestObject != nil {
		t.Errorf("secret create event %+v, want Metadata without a body", secretEv)
	}
	denied := findAudit(t, logPath, "the denied get", func(ev auditEvent) bool { return ev.User.Username == "reader" })
	if denied.ResponseStatus.Code != 403 || denied.Annotations["authorization.k8s.io/decision"] != "forbid" {
		t.Errorf("denied get event %+v", denied)
	}
	failed := findAudit(t, logPath, "the failed authentication", func(ev auditEvent) bool { return ev.ResponseStatus.Code == 401 })
	if failed.User.Username != "" || failed.ObjectRef == nil || failed.ObjectRef.Resource != "namespaces" {
		t.Errorf("failed authentication event %+v", failed)
	}
	if created.Annotations["authorization.k8s.io/decision"] != "allow" {
		t.Errorf("allowed create's annotations %v", created.Annotations)
	}

	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{s.AdminToken, auditReaderToken, "not-a-token-0123456789", auditSecretValue, "super-secret-value"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the audit log holds %q", secret)
		}
	}
	events := readAudit(t, logPath)
	for _, ev := range events {
		if ev.Stage == "RequestReceived" || strings.HasPrefix(ev.RequestURI, "/readyz") {
			t.Errorf("event the policy omits: %+v", ev)
		}
	}
	// kube's audit metrics count what was written, and nothing dropped.
	_, body := scrape(t, s, s.AdminToken)
	if got := sample(t, body, "apiserver_audit_event_total"); got < float64(len(events)) {
		t.Errorf("apiserver_audit_event_total %v, but the log holds %d events", got, len(events))
	}
	if got := sample(t, body, "apiserver_audit_error_total", `plugin="buffered"`); got != 0 || !strings.Contains(body, "apiserver_audit_error_total") {
		t.Errorf("apiserver_audit_error_total %v (present: %v), want 0", got, strings.Contains(body, "apiserver_audit_error_total"))
	}
}
