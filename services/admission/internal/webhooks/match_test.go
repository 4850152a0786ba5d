package webhooks

import (
	"context"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// Which requests a webhook is called about, and which are refused before
// any call: rules, matchPolicy, selectors and match conditions.
func TestShouldCall(t *testing.T) {
	srv := newServer(t, allow)
	base := validatingHook("w.example.com", srv)
	with := func(f func(h *admissionregistrationv1.ValidatingWebhook)) admissionregistrationv1.ValidatingWebhook {
		h := base
		f(&h)
		return h
	}
	rule := func(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope admissionregistrationv1.ScopeType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: groups, APIVersions: versions, Resources: resources, Scope: &scope}}}
	}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	update := []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	core := []string{""}
	v1 := []string{"v1"}
	podCreateIn := func(ns string, labels map[string]string) func(*testing.T) *admission.Attributes {
		return func(t *testing.T) *admission.Attributes { return podCreate(t, ns, labels) }
	}
	podStatus := func(t *testing.T) *admission.Attributes {
		a := podCreate(t, "prod", nil)
		a.Operation, a.SubResource, a.RequestSubResource = admissionv1.Update, "status", "status"
		a.OldObject = a.Object
		return a
	}
	nsCreate := func(labels map[string]string) func(*testing.T) *admission.Attributes {
		return func(t *testing.T) *admission.Attributes {
			return plugintest.Attrs(t, admissionv1.Create, "", "v1", "Namespace", "namespaces", "new", "new", namespace("new", labels), nil)
		}
	}
	nodeCreate := func(t *testing.T) *admission.Attributes {
		return plugintest.Attrs(t, admissionv1.Create, "", "v1", "Node", "nodes", "", "n", map[string]any{"metadata": map[string]any{"name": "n"}}, nil)
	}
	// A deployment asked for as apps/v1beta2: Equivalent matches it by
	// its stored resource, Exact only by what the client asked for.
	deployViaOtherVersion := func(t *testing.T) *admission.Attributes {
		a := plugintest.Attrs(t, admissionv1.Create, "apps", "v1", "Deployment", "deployments", "prod", "d", map[string]any{}, nil)
		a.RequestResource = metav1.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}
		return a
	}
	prodSelector := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	cases := []struct {
		name  string
		hook  admissionregistrationv1.ValidatingWebhook
		attrs func(*testing.T) *admission.Attributes
		call  bool
		code  int32 // a refusal before any call
	}{
		{"rule matches", base, podCreateIn("prod", nil), true, 0},
		{"other operation", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(update, core, v1, []string{"pods"}, "*")
		}), podCreateIn("prod", nil), false, 0},
		{"other resource", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"configmaps"}, "*")
		}), podCreateIn("prod", nil), false, 0},
		{"other group", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, []string{"apps"}, v1, []string{"pods"}, "*")
		}), podCreateIn("prod", nil), false, 0},
		{"resource wildcard skips subresources", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, []string{"*"}, []string{"*"}, []string{"*"}, "*")
		}), podStatus, false, 0},
		{"subresource named", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"pods/status"}, "*")
		}), podStatus, true, 0},
		{"pods/* is pods and its subresources", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"pods/*"}, "*")
		}), podStatus, true, 0},
		{"cluster scope skips namespaced", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"*"}, admissionregistrationv1.ClusterScope)
		}), podCreateIn("prod", nil), false, 0},
		{"namespaced scope skips cluster", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"*"}, admissionregistrationv1.NamespacedScope)
		}), nodeCreate, false, 0},
		{"a namespace is cluster-scoped", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, core, v1, []string{"namespaces"}, admissionregistrationv1.ClusterScope)
		}), nsCreate(nil), true, 0},
		{"equivalent version", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, []string{"apps"}, []string{"v1"}, []string{"deployments"}, "*")
		}), deployViaOtherVersion, true, 0},
		{"exact version", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, []string{"apps"}, []string{"v1"}, []string{"deployments"}, "*")
			h.MatchPolicy = &exact
		}), deployViaOtherVersion, false, 0},
		{"exact, the version asked for", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules = rule(all, []string{"apps"}, []string{"v1beta2"}, []string{"deployments"}, "*")
			h.MatchPolicy = &exact
		}), deployViaOtherVersion, true, 0},
		{"namespace selected", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.NamespaceSelector = prodSelector }),
			podCreateIn("prod", nil), true, 0},
		{"namespace not selected", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.NamespaceSelector = prodSelector }),
			podCreateIn("dev", nil), false, 0},
		{"namespace only the API knows", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.NamespaceSelector = prodSelector }),
			podCreateIn("late", nil), true, 0},
		{"missing namespace", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.NamespaceSelector = prodSelector }),
			podCreateIn("gone", nil), false, http.StatusNotFound},
		{"new namespace judged by its labels", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.NamespaceSelector = prodSelector
			h.Rules = rule(all, core, v1, []string{"namespaces"}, "*")
		}), nsCreate(map[string]string{"env": "prod"}), true, 0},
		{"cluster-scoped objects ignore namespaceSelector", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.NamespaceSelector = prodSelector
			h.Rules = rule(all, core, v1, []string{"nodes"}, "*")
		}), nodeCreate, true, 0},
		{"object selected", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.ObjectSelector = prodSelector }),
			podCreateIn("dev", map[string]string{"env": "prod"}), true, 0},
		{"object not selected", with(func(h *admissionregistrationv1.ValidatingWebhook) { h.ObjectSelector = prodSelector }),
			podCreateIn("dev", map[string]string{"env": "dev"}), false, 0},
		{"condition true", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{
				{Name: "prod", Expression: `object.metadata.namespace == "prod" && request.operation == "CREATE" && oldObject == null`},
				{Name: "containers", Expression: `size(object.spec.containers) == 1`},
			}
		}), podCreateIn("prod", nil), true, 0},
		{"condition false", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "user", Expression: `request.userInfo.username == "alice"`}}
		}), podCreateIn("prod", nil), false, 0},
		{"condition error, Fail", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "missing", Expression: `object.spec.nothing == 1`}}
		}), podCreateIn("prod", nil), false, http.StatusForbidden},
		{"condition error, Ignore", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.FailurePolicy = &ignore
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "missing", Expression: `object.spec.nothing == 1`}}
		}), podCreateIn("prod", nil), false, 0},
		{"false beats an error", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{
				{Name: "missing", Expression: `object.spec.nothing == 1`},
				{Name: "no", Expression: `false`},
			}
		}), podCreateIn("prod", nil), false, 0},
		{"condition that does not compile", with(func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "authz", Expression: `authorizer.group("").resource("pods").check("get").allowed()`}}
		}), podCreateIn("prod", nil), false, http.StatusForbidden},
	}
	v, client := startValidating(t, namespace("prod", map[string]string{"env": "prod"}), namespace("dev", nil))
	// "late" is in the API but not (yet) in the informer.
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), namespace("late", map[string]string{"env": "prod"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHook("config", fromValidating(c.hook), newClients())
			call, deny := v.d.shouldCall(context.Background(), h, c.attrs(t))
			var code int32
			if deny != nil {
				code = deny.Status.Code
			}
			if (call != nil) != c.call || code != c.code {
				t.Errorf("call %t, refusal %d (%+v); want %t, %d", call != nil, code, deny, c.call, c.code)
			}
		})
	}
}

// Requests about webhook configurations are never sent to webhooks, so a
// broken one can be removed.
func TestConfigurationsExempt(t *testing.T) {
	srv := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false}
	})
	h := validatingHook("deny-all.example.com", srv)
	h.Rules[0].Rule = admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}
	h.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	v, _ := startValidating(t, validatingConfig("deny-all", h))
	del := plugintest.Attrs(t, admissionv1.Delete, "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
		"validatingwebhookconfigurations", "", "deny-all", nil, validatingConfig("deny-all", h))
	if res := plugintest.Admit(t, v, del); !res.Allowed || srv.calls.Load() != 0 {
		t.Fatalf("deleting the configuration: %+v, %d calls", res.Status, srv.calls.Load())
	}
	if res := plugintest.Admit(t, v, podCreate(t, "prod", nil)); res.Allowed {
		t.Fatal("the deny-all webhook allowed a pod")
	}
}
