package kubeplugin

import (
	"context"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// withOpenAPI is a fake clientset whose discovery serves kube's own
// OpenAPI v3 documents (client-go's test copy of them), which the plugin
// types objects with; the fake's own discovery has none.
type withOpenAPI struct{ *fake.Clientset }

func (c withOpenAPI) Discovery() discovery.DiscoveryInterfaces {
	return openAPIDiscovery{c.Clientset.Discovery().(*fakediscovery.FakeDiscovery)}
}

type openAPIDiscovery struct{ *fakediscovery.FakeDiscovery }

func (openAPIDiscovery) OpenAPIV3() openapi.Client { return openapitest.NewEmbeddedFileClient() }

// policyDeps are the plugin's dependencies over a fake API holding objs.
func policyDeps(objs ...runtime.Object) plugin.Deps {
	client := fake.NewClientset(objs...)
	return plugin.Deps{Client: withOpenAPI{client}, Informers: informers.NewSharedInformerFactory(client, 0),
		Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())}
}

// labelPolicy labels configmaps created in namespaces labelled
// mutate=yes, by an ApplyConfiguration, and adds a data key by a
// JSONPatch (which fails on a configmap without data).
func labelPolicy() (*admv1.MutatingAdmissionPolicy, *admv1.MutatingAdmissionPolicyBinding) {
	equivalent, fail := admv1.Equivalent, admv1.Fail
	p := &admv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "label"}, Spec: admv1.MutatingAdmissionPolicySpec{
		MatchConstraints: &admv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}, MatchPolicy: &equivalent,
			ResourceRules: []admv1.NamedRuleWithOperations{{RuleWithOperations: admv1.RuleWithOperations{
				Operations: []admv1.OperationType{admv1.Create},
				Rule:       admv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}}},
		},
		FailurePolicy:      &fail,
		ReinvocationPolicy: admv1.NeverReinvocationPolicy,
		Mutations: []admv1.Mutation{
			{PatchType: admv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admv1.ApplyConfiguration{
				Expression: `Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`}},
			{PatchType: admv1.PatchTypeJSONPatch, JSONPatch: &admv1.JSONPatch{
				Expression: `[JSONPatch{op: "add", path: "/data/added", value: "by-policy"}]`}},
		},
	}}
	b := &admv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "label"}, Spec: admv1.MutatingAdmissionPolicyBindingSpec{
		PolicyName: "label",
		MatchResources: &admv1.MatchResources{MatchPolicy: &equivalent, ObjectSelector: &metav1.LabelSelector{},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mutate": "yes"}}},
	}}
	return p, b
}

func configMap(ns string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: ns}, Data: data}
}

func createConfigMap(t *testing.T, cm *corev1.ConfigMap) *admission.Attributes {
	return plugintest.Attrs(t, admissionv1.Create, "", "v1", "ConfigMap", "configmaps", cm.Namespace, cm.Name, cm, nil)
}

// Kube's MutatingAdmissionPolicy, through the adapter, applies a bound
// policy's ApplyConfiguration and JSONPatch to what its binding selects,
// returned as a patch; a mutation that fails is the policy's refusal,
// worded by kube; the rules published are the bound policy's.
func TestMutatingAdmissionPolicy(t *testing.T) {
	p, b := labelPolicy()
	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "on", Labels: map[string]string{"mutate": "yes"}}}
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "off"}}
	deps := policyDeps(p, b, labelled, other)
	m, v, err := NewMutatingPolicyPhases(deps)
	if err != nil || m == nil || v != nil {
		t.Fatalf("halves %v, %v: %v", m, v, err)
	}
	plugintest.Start(t, deps)

	attrs := createConfigMap(t, configMap("on", map[string]string{"k": "v"}))
	plugintest.Asked(t, m.(plugin.DynamicRules).CurrentRules().Mutating, attrs)
	var res *admission.Result
	// Until the plugin has read the OpenAPI paths (at its start, in the
	// background) it answers 503, as kube's does.
	polltest.Until(t, 10*time.Second, "the policy to apply", func() bool {
		res = plugintest.Admit(t, m, attrs)
		return res.Allowed
	})
	got := &corev1.ConfigMap{}
	plugintest.Patched(t, attrs, res, got)
	if got.Labels["mutated"] != "yes" || got.Data["added"] != "by-policy" || got.Data["k"] != "v" {
		t.Errorf("patched %+v, patch %s", got, res.Patch)
	}

	if res := plugintest.Admit(t, m, createConfigMap(t, configMap("off", map[string]string{"k": "v"}))); !res.Allowed || len(res.Patch) != 0 {
		t.Errorf("outside the binding: %+v, patch %s", res.Status, res.Patch)
	}

	res = plugintest.Admit(t, m, createConfigMap(t, configMap("on", nil)))
	if res.Allowed || res.Status.Code != 403 || res.Status.Reason != metav1.StatusReasonInvalid ||
		res.Status.Message != `policy 'label' with binding 'label' denied request: JSON Patch: add operation does not apply: doc is missing path: "/data/added": missing value` {
		t.Errorf("failed JSONPatch: %+v", res.Status)
	}
}

// Without policies the plugin is asked about nothing.
func TestMutatingAdmissionPolicyNoRules(t *testing.T) {
	deps := policyDeps()
	m, _, err := NewMutatingPolicyPhases(deps)
	if err != nil {
		t.Fatal(err)
	}
	rules := m.(plugin.DynamicRules)
	if got := rules.CurrentRules().Mutating; len(got) != 1 {
		t.Errorf("before the informers synced: %+v, want everything", got)
	}
	plugintest.Start(t, deps)
	if got := rules.CurrentRules(); len(got.Mutating) != 0 || len(got.Validating) != 0 {
		t.Errorf("rules %+v, want none", got)
	}
	if _, _, err := NewMutatingPolicyPhases(plugin.Deps{Client: deps.Client, Informers: deps.Informers}); err == nil {
		t.Error("built without a dynamic client")
	}
}

// Under matchPolicy Equivalent a policy's published rules ask about its
// resources in every version and about their equivalents in other groups,
// since kube's plugin matches them by their equivalents (core and
// events.k8s.io Events are one storage, as discovery says); under Exact,
// only as written.
func TestMutatingAdmissionPolicyEquivalentRules(t *testing.T) {
	for _, match := range []admv1.MatchPolicyType{admv1.Equivalent, admv1.Exact} {
		t.Run(string(match), func(t *testing.T) {
			p, b := labelPolicy()
			p.Spec.MatchConstraints.MatchPolicy = &match
			p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"events"}
			deps := policyDeps(p, b)
			deps.Client.(withOpenAPI).Resources = []*metav1.APIResourceList{
				{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "events", Kind: "Event", StorageVersionHash: "ev"}}},
				{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "events", Kind: "Event", StorageVersionHash: "ev"}}},
			}
			m, _, err := NewMutatingPolicyPhases(deps)
			if err != nil {
				t.Fatal(err)
			}
			plugintest.Start(t, deps)
			ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}}
			attrs := plugintest.Attrs(t, admissionv1.Create, "events.k8s.io", "v1", "Event", "events", "ns", "e", ev, nil)
			polltest.Until(t, 10*time.Second, "the bound policy's rules", func() bool {
				return len(m.(plugin.DynamicRules).CurrentRules().Mutating) > 0
			})
			if asked := admission.Matches(m.(plugin.DynamicRules).CurrentRules().Mutating, attrs); asked != (match == admv1.Equivalent) {
				t.Errorf("asked about an events.k8s.io Event: %v", asked)
			}
		})
	}
}

// A policy with reinvocationPolicy IfNeeded runs again when a later
// mutation (a webhook's, which asks for the chain's second run) changed
// the object, and sees the change; one with Never does not.
func TestMutatingAdmissionPolicyReinvoked(t *testing.T) {
	later := admission.Mutating(admission.AdmitterFunc(func(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
		rc := admission.ReinvocationFrom(ctx)
		if rc.IsReinvoke() {
			return admission.Allow(), nil
		}
		rc.SetShouldReinvoke()
		return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels","value":{"later":"changed"}}]`)}, nil
	}))
	for policy, want := range map[admv1.ReinvocationPolicyType]string{admv1.IfNeededReinvocationPolicy: "changed", admv1.NeverReinvocationPolicy: "none"} {
		t.Run(string(policy), func(t *testing.T) {
			p, b := labelPolicy()
			p.Spec.ReinvocationPolicy = policy
			p.Spec.Mutations = []admv1.Mutation{{PatchType: admv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admv1.ApplyConfiguration{
				Expression: `Object{data: {"seen": has(object.metadata.labels) && "later" in object.metadata.labels ? object.metadata.labels["later"] : "none"}}`}}}
			labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "on", Labels: map[string]string{"mutate": "yes"}}}
			deps := policyDeps(p, b, labelled)
			m, _, err := NewMutatingPolicyPhases(deps)
			if err != nil {
				t.Fatal(err)
			}
			plugintest.Start(t, deps)
			chain, err := admission.Chain(admission.Mutating(m), later)
			if err != nil {
				t.Fatal(err)
			}
			attrs := createConfigMap(t, configMap("on", map[string]string{"k": "v"}))
			var res *admission.Result
			polltest.Until(t, 10*time.Second, "the policy to apply", func() bool {
				res = plugintest.Admit(t, admission.Reinvoking(chain), attrs)
				return res.Allowed
			})
			got := &corev1.ConfigMap{}
			plugintest.Patched(t, attrs, res, got)
			if got.Data["seen"] != want || got.Labels["later"] != "changed" {
				t.Errorf("patched %+v, patch %s", got, res.Patch)
			}
		})
	}
}
