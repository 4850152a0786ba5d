package webhooks

import (
	"context"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// A configuration created, changed or deleted applies to the next
// requests, and to the rules the plugin publishes, without a restart.
func TestConfigurationChanges(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "not today"}}
	})
	v, client := startValidating(t)
	pod := podCreate(t, "prod", nil)
	if r := v.CurrentRules(); len(r.Validating) != 0 || len(r.Mutating) != 0 {
		t.Fatalf("rules with no configuration: %+v", r)
	}
	configs := client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	cfg := validatingConfig("deny", validatingHook("deny.example.com", srv))
	cfg.ResourceVersion = "1"
	if _, err := configs.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "the new webhook denies pods", func() bool {
		return !plugintest.Admit(t, v, pod).Allowed
	})
	if r := v.CurrentRules(); !admission.Matches(r.Validating, pod) || len(r.Mutating) != 0 {
		t.Fatalf("published rules %+v do not ask about pods", r)
	}

	cfg.Webhooks[0].Rules[0].Resources = []string{"configmaps"}
	cfg.ResourceVersion = "2"
	if _, err := configs.Update(ctx, cfg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "the changed webhook lets pods through", func() bool {
		return plugintest.Admit(t, v, pod).Allowed
	})
	if r := v.CurrentRules(); admission.Matches(r.Validating, pod) {
		t.Fatalf("published rules %+v still ask about pods", r)
	}

	if err := configs.Delete(ctx, "deny", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "no rules once deleted", func() bool { return len(v.CurrentRules().Validating) == 0 })
}

// Published rules are the webhooks' rules, widened to any version under
// matchPolicy Equivalent (and to equivalents in other groups: see
// kubeobject's TestWiden), as written under Exact, and everything until
// the configurations are known.
func TestCurrentRules(t *testing.T) {
	exactHook := mutatingHook("exact.example.com", newServer(t, allow))
	exactHook.MatchPolicy = &exact
	deps, _ := plugintest.Deps(t, mutatingConfig("a", mutatingHook("a.example.com", newServer(t, allow)), exactHook))
	a, _, err := NewMutatingPhases(deps)
	if err != nil {
		t.Fatal(err)
	}
	m := a.(*Mutating)
	if r := m.CurrentRules(); len(r.Mutating) != 1 || r.Mutating[0].Resources[0] != "*" || len(r.Validating) != 0 {
		t.Fatalf("rules before the informers synced: %+v, want everything", r)
	}
	plugintest.Start(t, deps)
	r := m.CurrentRules()
	equivalent := admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods"}}
	if len(r.Mutating) != 2 || !equalRule(r.Mutating[0].Rule, equivalent) || r.Mutating[0].Operations[0] != admissionregistrationv1.Create ||
		!equalRule(r.Mutating[1].Rule, podsCreate()[0].Rule) {
		t.Fatalf("rules %+v", r)
	}
}

func equalRule(a, b admissionregistrationv1.Rule) bool {
	return sameStrings(a.APIGroups, b.APIGroups) && sameStrings(a.APIVersions, b.APIVersions) && sameStrings(a.Resources, b.Resources)
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A service reference is called at its cluster DNS name.
func TestServiceURL(t *testing.T) {
	cases := []struct {
		cc   admissionregistrationv1.WebhookClientConfig
		want string
	}{
		{admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "hook"}}, "https://hook.ns.svc:443"},
		{admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "hook", Port: ptr(int32(8443)), Path: ptr("/validate")}}, "https://hook.ns.svc:8443/validate"},
		{admissionregistrationv1.WebhookClientConfig{URL: ptr("https://example.com:9443/x")}, "https://example.com:9443/x"},
		{admissionregistrationv1.WebhookClientConfig{URL: ptr("http://example.com/x")}, ""},
		{admissionregistrationv1.WebhookClientConfig{}, ""},
	}
	for _, c := range cases {
		got, err := webhookURL(c.cc)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("%+v: %q, %v; want %q", c.cc, got, err, c.want)
		}
	}
}
