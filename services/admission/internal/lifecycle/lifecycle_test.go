package lifecycle

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func ns(name string, phase corev1.NamespacePhase) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: phase}}
}

func pod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func podAttrs(t *testing.T, op admissionv1.Operation, namespace string) *admission.Attributes {
	p := pod(namespace, "web")
	switch op {
	case admissionv1.Create:
		return plugintest.Attrs(t, op, "", "v1", "Pod", "pods", namespace, "web", p, nil)
	case admissionv1.Delete:
		return plugintest.Attrs(t, op, "", "v1", "Pod", "pods", namespace, "web", nil, p)
	}
	return plugintest.Attrs(t, op, "", "v1", "Pod", "pods", namespace, "web", p, p)
}

func nsDelete(t *testing.T, name string) *admission.Attributes {
	return plugintest.Attrs(t, admissionv1.Delete, "", "v1", "Namespace", "namespaces", name, name, nil, ns(name, corev1.NamespaceActive))
}

// newPlugin starts the plugin with informed in its informers and live in
// the API it asks directly (the same objects unless live is given).
func newPlugin(t *testing.T, informed []runtime.Object, live ...runtime.Object) (admission.Admitter, *fake.Clientset) {
	t.Helper()
	deps, client := plugintest.Deps(t, informed...)
	if live != nil {
		client = fake.NewClientset(live...)
		deps.Client = client
	}
	p, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	return p, client
}

func TestDecisions(t *testing.T) {
	objs := []runtime.Object{ns("active", corev1.NamespaceActive), ns("dying", corev1.NamespaceTerminating)}
	p, _ := newPlugin(t, objs)
	cases := []struct {
		name    string
		attrs   *admission.Attributes
		code    int32 // 0: allowed
		message string
	}{
		{"create in active namespace", podAttrs(t, admissionv1.Create, "active"), 0, ""},
		{"create in terminating namespace", podAttrs(t, admissionv1.Create, "dying"), http.StatusForbidden,
			`pods "web" is forbidden: unable to create new content in namespace dying because it is being terminated`},
		{"update in terminating namespace", podAttrs(t, admissionv1.Update, "dying"), 0, ""},
		{"delete in terminating namespace", podAttrs(t, admissionv1.Delete, "dying"), 0, ""},
		{"create in missing namespace", podAttrs(t, admissionv1.Create, "nowhere"), http.StatusNotFound, `namespaces "nowhere" not found`},
		{"delete default", nsDelete(t, "default"), http.StatusForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`},
		{"delete kube-system", nsDelete(t, "kube-system"), http.StatusForbidden, `namespaces "kube-system" is forbidden: this namespace may not be deleted`},
		{"delete kube-public", nsDelete(t, "kube-public"), http.StatusForbidden, `namespaces "kube-public" is forbidden: this namespace may not be deleted`},
		{"delete ordinary namespace", nsDelete(t, "active"), 0, ""},
		{"create namespace", plugintest.Attrs(t, admissionv1.Create, "", "v1", "Namespace", "namespaces", "new", "new", ns("new", ""), nil), 0, ""},
		{"cluster-scoped create", plugintest.Attrs(t, admissionv1.Create, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "", "r", map[string]any{"metadata": map[string]any{"name": "r"}}, nil), 0, ""},
		{"access review in terminating namespace", plugintest.Attrs(t, admissionv1.Create, "authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", "dying", "", map[string]any{}, nil), 0, ""},
		{"generateName in message", plugintest.Attrs(t, admissionv1.Create, "", "v1", "ConfigMap", "configmaps", "dying", "",
			map[string]any{"metadata": map[string]any{"generateName": "cm-"}}, nil), http.StatusForbidden,
			`configmaps "cm-" is forbidden: unable to create new content in namespace dying because it is being terminated`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := plugintest.Admit(t, p, c.attrs)
			checkResult(t, res, c.code, c.message)
		})
	}
}

func checkResult(t *testing.T, res *admission.Result, code int32, message string) {
	t.Helper()
	if code == 0 {
		if !res.Allowed {
			t.Fatalf("denied: %+v", res.Status)
		}
		return
	}
	if res.Allowed || res.Status == nil {
		t.Fatalf("allowed, want %d", code)
	}
	if res.Status.Code != code || res.Status.Message != message {
		t.Fatalf("got %d %q, want %d %q", res.Status.Code, res.Status.Message, code, message)
	}
}

// The denial carries kube's NamespaceTerminating cause, which clients
// look for.
func TestTerminatingCause(t *testing.T) {
	p, _ := newPlugin(t, []runtime.Object{ns("dying", corev1.NamespaceTerminating)})
	res := plugintest.Admit(t, p, podAttrs(t, admissionv1.Create, "dying"))
	if res.Status == nil || res.Status.Reason != metav1.StatusReasonForbidden || res.Status.Details == nil ||
		len(res.Status.Details.Causes) != 1 || res.Status.Details.Causes[0].Type != corev1.NamespaceTerminatingCause {
		t.Fatalf("status %+v", res.Status)
	}
}

// A namespace the informer has not seen yet is looked up in the API.
func TestLiveLookupOfUnknownNamespace(t *testing.T) {
	p, _ := newPlugin(t, nil, ns("fresh", corev1.NamespaceActive), ns("fresh-dying", corev1.NamespaceTerminating))
	checkResult(t, plugintest.Admit(t, p, podAttrs(t, admissionv1.Create, "fresh")), 0, "")
	checkResult(t, plugintest.Admit(t, p, podAttrs(t, admissionv1.Create, "fresh-dying")), http.StatusForbidden,
		`pods "web" is forbidden: unable to create new content in namespace fresh-dying because it is being terminated`)
}

// After admitting a namespace's deletion, an informer still showing it
// Active is not trusted: the API is asked.
func TestLiveLookupAfterDelete(t *testing.T) {
	p, _ := newPlugin(t, []runtime.Object{ns("going", corev1.NamespaceActive)}, ns("going", corev1.NamespaceTerminating))
	checkResult(t, plugintest.Admit(t, p, podAttrs(t, admissionv1.Create, "going")), 0, "")
	checkResult(t, plugintest.Admit(t, p, nsDelete(t, "going")), 0, "")
	checkResult(t, plugintest.Admit(t, p, podAttrs(t, admissionv1.Create, "going")), http.StatusForbidden,
		`pods "web" is forbidden: unable to create new content in namespace going because it is being terminated`)
}

// When the API cannot be asked, there is no answer (the caller fails
// closed), not a denial blaming the client.
func TestLiveLookupError(t *testing.T) {
	p, client := newPlugin(t, nil, ns("other", corev1.NamespaceActive))
	client.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	res, err := p.Admit(context.Background(), podAttrs(t, admissionv1.Create, "unknown"))
	if err == nil || !strings.Contains(err.Error(), "connection refused") || res != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestNewNeedsClient(t *testing.T) {
	deps, _ := plugintest.Deps(t)
	deps.Client = nil
	if _, err := New(deps); !errors.Is(err, admission.ErrInvalidConfig) {
		t.Fatalf("err %v", err)
	}
}
