package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// traceOf is the spans of one trace, by span id.
func traceOf(spans []framework.Span, traceID string) map[string]framework.Span {
	out := map[string]framework.Span{}
	for _, s := range spans {
		if s.TraceID == traceID {
			out[s.SpanID] = s
		}
	}
	return out
}

// bindServiceAccount grants a service account rules in ns.
// serviceAccountToken is a new token of the account, asked for until
// authn knows the account.
func serviceAccountToken(t *testing.T, admin kubernetes.Interface, ns, account string) string {
	t.Helper()
	var token string
	polltest.Until(t, 10*time.Second, "a token for the account", func() bool {
		tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), account, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err == nil {
			token = tr.Status.Token
		}
		return err == nil
	})
	return token
}

func bindServiceAccount(t *testing.T, admin kubernetes.Interface, ns, account string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	if _, err := admin.RbacV1().Roles(ns).Create(ctx(t), role(account, rules...), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: account},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: account},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: account, Namespace: ns}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx(t), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createSpan is the aggregator's server span of the config map create.
func createSpan(spans []framework.Span) (framework.Span, bool) {
	for _, s := range spans {
		if s.Service == "kubesplit-aggregator" && s.Name == "POST /api/v1/namespaces/{namespace}/configmaps" && s.Attributes["enduser.id"] == "system:serviceaccount:traced:tracer" {
			return s, true
		}
	}
	return framework.Span{}, false
}

// One create, by a user whose token is new, is one trace whose spans come
// from all five services, each hop's server span the child of the
// caller's client span; the same create again is served from the
// aggregator's caches, which its span shows, and authn and authz serve
// nothing.
func TestOneTraceAcrossFiveServices(t *testing.T) {
	otlp := framework.StartOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	s := framework.StartStack(t, framework.StackOptions{})
	admin := s.Client(t, s.AdminToken)
	const ns, account = "traced", "tracer"
	createNamespace(t, admin, ns)
	// A quota makes admission look at creates in the namespace.
	quotaConfigMaps(t, admin, ns)
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx(t), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bindServiceAccount(t, admin, ns, account, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}})
	// Until authz knows the grant, asked without the account's token,
	// which must reach authn for the first time with the create.
	user := "system:serviceaccount:" + ns + ":" + account
	polltest.Until(t, 10*time.Second, "authz to allow the account's create", func() bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Resource: "configmaps"}}}
		res, err := admin.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), sar, metav1.CreateOptions{})
		return err == nil && res.Status.Allowed
	})
	token := serviceAccountToken(t, admin, ns, account)
	client := s.Client(t, token)
	create := func(name string) {
		t.Helper()
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("first")

	var root framework.Span
	allFive := polltest.Within(10*time.Second, func() bool {
		var ok bool
		if root, ok = createSpan(otlp.Spans()); !ok {
			return false
		}
		// Each service exports on its own schedule: wait for all five,
		// and for every span's parent, which another service may export
		// after the span itself.
		services := map[string]bool{}
		trace := traceOf(otlp.Spans(), root.TraceID)
		for _, sp := range trace {
			services[sp.Service] = true
			if _, ok := trace[sp.ParentSpanID]; sp.ParentSpanID != "" && !ok {
				return false
			}
		}
		return len(services) == 5
	})
	trace := traceOf(otlp.Spans(), root.TraceID)
	if !allFive {
		for _, sp := range trace {
			t.Logf("span of %s: %q, kind %v, parent %s", sp.Service, sp.Name, sp.Kind, sp.ParentSpanID)
		}
		t.Fatal("the create's trace does not hold spans of all five services, each with its parent")
	}
	for _, sp := range trace {
		if sp.ParentSpanID == "" {
			if sp.SpanID != root.SpanID {
				t.Errorf("a second root in the trace: %+v", sp)
			}
			continue
		}
		parent, ok := trace[sp.ParentSpanID]
		if !ok {
			t.Errorf("span %s of %s has a parent outside the trace", sp.Name, sp.Service)
			continue
		}
		// A server span's parent is the client span of its caller.
		if sp.Kind == 2 && sp.Service != "kubesplit-aggregator" && (parent.Kind != 3 || parent.Service == sp.Service) {
			t.Errorf("server span %s of %s has parent %s of %s (kind %v)", sp.Name, sp.Service, parent.Name, parent.Service, parent.Kind)
		}
	}
	if root.Attributes["k8s.request.verb"] != "create" || root.Attributes["k8s.request.resource"] != "configmaps" || root.Attributes["enduser.id"] != user {
		t.Errorf("the aggregator's span attributes %v", root.Attributes)
	}

	create("second")
	var second framework.Span
	polltest.Until(t, 10*time.Second, "the second create's trace", func() bool {
		for _, sp := range otlp.Spans() {
			if sp.Service == "kubesplit-aggregator" && sp.TraceID != root.TraceID && sp.Name == root.Name && sp.Attributes["enduser.id"] == "system:serviceaccount:traced:tracer" {
				second = sp
				return true
			}
		}
		return false
	})
	for _, sp := range traceOf(otlp.Spans(), second.TraceID) {
		if sp.Service == "kubesplit-authn" || sp.Service == "kubesplit-authz" {
			t.Errorf("a cached create reached %s: %s", sp.Service, sp.Name)
		}
	}
	// A client can find the trace of its request from the response.
	_, h, _ := stackDo(t, s, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps/missing", token, "")
	parts := strings.Split(h.Get("Traceresponse"), "-")
	if len(parts) != 4 {
		t.Fatalf("traceresponse %q", h.Get("Traceresponse"))
	}
	polltest.Until(t, 10*time.Second, "the spans of the trace the response names", func() bool {
		return len(traceOf(otlp.Spans(), parts[1])) > 0
	})
	for _, want := range []string{"authentication cache hit", "authorization cache hit"} {
		if !slices.Contains(second.Events, want) {
			t.Errorf("the second create's span events %v lack %q", second.Events, want)
		}
	}
}
