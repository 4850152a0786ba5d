package e2e

import (
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// A MutatingAdmissionPolicy labelling the configmaps created in the
// namespaces its binding selects (an ApplyConfiguration) and adding a data
// key to them (a JSONPatch, which fails on a configmap without data).
const (
	labelPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy",
"metadata":{"name":"e2e-label"},
"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
 "mutations":[
  {"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"e2e-mutated\": \"yes\"}}}"}},
  {"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: \"add\", path: \"/data/added\", value: \"by-policy\"}]"}}]}}`
	labelBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding",
"metadata":{"name":"e2e-label"},
"spec":{"policyName":"e2e-label","matchResources":{"namespaceSelector":{"matchLabels":{"e2e-mutate":"yes"}}}}}`
	// gadgetsCRD is a custom resource for gadgetPolicy, which sizes the
	// gadgets created in the same namespaces (a custom resource's object
	// is unstructured to the plugin, typed by the CRD's schema).
	gadgetsCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.e2e-map.example.com"},
"spec":{"group":"e2e-map.example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
  "spec":{"type":"object","properties":{"size":{"type":"string"},"color":{"type":"string"}}}}}}}]}}`
	gadgetPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy",
"metadata":{"name":"e2e-gadgets"},
"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
 "matchConstraints":{"resourceRules":[{"apiGroups":["e2e-map.example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["gadgets"]}]},
 "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{spec: Object.spec{size: \"M\"}}"}}]}}`
	gadgetBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding",
"metadata":{"name":"e2e-gadgets"},
"spec":{"policyName":"e2e-gadgets","matchResources":{"namespaceSelector":{"matchLabels":{"e2e-mutate":"yes"}}}}}`
	// hpaPolicy labels HorizontalPodAutoscalers by a rule on autoscaling/v2
	// alone; under its default matchPolicy, Equivalent, it applies to an
	// autoscaling/v1 request too, on the object converted to v2 and back.
	hpaPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy",
"metadata":{"name":"e2e-hpa"},
"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
 "matchConstraints":{"resourceRules":[{"apiGroups":["autoscaling"],"apiVersions":["v2"],"operations":["CREATE"],"resources":["horizontalpodautoscalers"]}]},
 "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"e2e-mutated\": \"yes\"}}}"}}]}}`
	hpaBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding",
"metadata":{"name":"e2e-hpa"},
"spec":{"policyName":"e2e-hpa","matchResources":{"namespaceSelector":{"matchLabels":{"e2e-mutate":"yes"}}}}}`
	// badPolicy's ApplyConfiguration is not CEL.
	badPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy",
"metadata":{"name":"e2e-bad"},
"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
 "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: "}}]}}`
)

// TestMutatingAdmissionPolicyAsKube writes the same MutatingAdmissionPolicy
// and binding to kube-apiserver v1.37.2 and to kubesplit, which runs kube's
// own plugin, and compares what the policy does: the configmap created in a
// selected namespace mutated alike, and a custom resource too, a request
// matched through an equivalent version answered alike, one elsewhere left
// alone, one the
// JSONPatch cannot apply to refused with the same message, and a policy
// whose CEL does not compile refused with the same message.
func TestMutatingAdmissionPolicyAsKube(t *testing.T) {
	var k *framework.KubeAPIServer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k = framework.StartKubeAPIServer(t) }()
	s := framework.StartStack(t, framework.StackOptions{})
	wg.Wait()
	if k == nil {
		t.Fatal("kube-apiserver did not start")
	}
	kube, ours := newAPIServer(t, "kube", k.RESTConfig()), newAPIServer(t, "kubesplit", s.RESTConfig(t, s.AdminToken))
	const adm = "/apis/admissionregistration.k8s.io/v1/"
	cms := func(ns string) string { return "/api/v1/namespaces/" + ns + "/configmaps" }
	const withData = `{"metadata":{"generateName":"cm-"},"data":{"k":"v"}}`
	created := map[string]answer{}
	for _, a := range []*apiServer{kube, ours} {
		for _, c := range []struct{ path, body string }{
			{"/api/v1/namespaces", `{"metadata":{"name":"map-on","labels":{"e2e-mutate":"yes"}}}`},
			{"/api/v1/namespaces", `{"metadata":{"name":"map-off"}}`},
			{adm + "mutatingadmissionpolicies", labelPolicy},
			{adm + "mutatingadmissionpolicybindings", labelBinding},
			{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetsCRD},
			{adm + "mutatingadmissionpolicies", gadgetPolicy},
			{adm + "mutatingadmissionpolicybindings", gadgetBinding},
			{adm + "mutatingadmissionpolicies", hpaPolicy},
			{adm + "mutatingadmissionpolicybindings", hpaBinding},
		} {
			if ans := a.do(t, "POST", c.path, "", c.body); ans.code != http.StatusCreated {
				t.Fatalf("%s: POST %s: %d %s", a.name, c.path, ans.code, ans.message)
			}
		}
		// The policy applies once the plugin's informers (and, in
		// kubesplit, the registry's rules) have seen it.
		created[a.name] = answeredAs(t, a, "POST", cms("map-on"), "", withData, http.StatusCreated, func(ans answer) bool {
			return field(ans.body, "metadata", "labels", "e2e-mutated") != nil
		})
	}
	t.Run("the selected configmap is mutated alike", func(t *testing.T) {
		for _, f := range [][]string{{"metadata", "labels"}, {"data"}} {
			k, o := field(created["kube"].body, f...), field(created["kubesplit"].body, f...)
			if !reflect.DeepEqual(k, o) {
				t.Errorf("%v\nkube:      %v\nkubesplit: %v", f, k, o)
			}
		}
		if d := field(created["kubesplit"].body, "data", "added"); d != "by-policy" {
			t.Errorf("data.added %v", d)
		}
	})
	t.Run("a custom resource is mutated alike", func(t *testing.T) {
		gadgets := map[string]answer{}
		for _, a := range []*apiServer{kube, ours} {
			// Until the CRD is served and its schema published.
			gadgets[a.name] = answeredAs(t, a, "POST", "/apis/e2e-map.example.com/v1/namespaces/map-on/gadgets", "",
				`{"apiVersion":"e2e-map.example.com/v1","kind":"Gadget","metadata":{"generateName":"g-"},"spec":{"color":"red"}}`,
				http.StatusCreated, func(ans answer) bool { return field(ans.body, "spec", "size") != nil })
		}
		k, o := field(gadgets["kube"].body, "spec"), field(gadgets["kubesplit"].body, "spec")
		if !reflect.DeepEqual(k, o) || field(gadgets["kubesplit"].body, "spec", "size") != "M" {
			t.Errorf("spec\nkube:      %v\nkubesplit: %v", k, o)
		}
	})
	t.Run("a policy on v2 answers a v1 request as kube does", func(t *testing.T) {
		// Kube's plugin matches the v1 request through its v2 equivalent;
		// kubesplit runs the same plugin, so it must answer alike (kube
		// 1.37.2 refuses it, failing to convert the mutated v2 object back
		// to v1; without the match it would be created unlabelled).
		const path = "/apis/autoscaling/v1/namespaces/map-on/horizontalpodautoscalers"
		const body = `{"metadata":{"generateName":"hpa-"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3}}`
		k := kube.do(t, "POST", path, "", body)
		// Until kubesplit's registry knows the policy's rules.
		o := answeredAs(t, ours, "POST", path, "", body, k.code, func(o answer) bool {
			return reflect.DeepEqual(field(k.body, "metadata", "labels"), field(o.body, "metadata", "labels"))
		})
		if o.message != k.message {
			t.Errorf("kube:      %d %s\nkubesplit: %d %s", k.code, k.message, o.code, o.message)
		}
	})
	t.Run("a configmap elsewhere is left alone", func(t *testing.T) {
		ans := both(t, kube, ours, "POST", cms("map-off"), "", `{"metadata":{"name":"plain"},"data":{"k":"v"}}`)
		if ans.code != http.StatusCreated || field(ans.body, "metadata", "labels") != nil || field(ans.body, "data", "added") != nil {
			t.Errorf("kubesplit: %d %v", ans.code, ans.body)
		}
	})
	t.Run("a mutation that does not apply refuses the write", func(t *testing.T) {
		if ans := both(t, kube, ours, "POST", cms("map-on"), "", `{"metadata":{"name":"nodata"}}`); ans.code == http.StatusCreated {
			t.Errorf("kubesplit created it: %v", ans.body)
		}
	})
	t.Run("a policy whose CEL does not compile is refused", func(t *testing.T) {
		if ans := both(t, kube, ours, "POST", adm+"mutatingadmissionpolicies", "", badPolicy); ans.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", ans.code, ans.message)
		}
	})
}
