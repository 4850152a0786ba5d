package policy

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

// env is a plugin over a fake cluster holding the policies, bindings,
// namespaces and params a test gives it.
type env struct {
	t      *testing.T
	plugin *Plugin
}

// newEnv builds the plugin on objs: typed objects for the informers, and
// ConfigMaps also for the dynamic client params are read with.
func newEnv(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	objs = append(objs, namespace("default", nil), namespace("prod", map[string]string{"env": "prod"}))
	deps, client := plugintest.Deps(t, objs...)
	client.Fake.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: metav1.Verbs{"get", "list", "watch"}},
		{Name: "namespaces", Kind: "Namespace", Verbs: metav1.Verbs{"get", "list", "watch"}},
	}}}
	var params []runtime.Object
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			params = append(params, cm)
		}
	}
	deps.Dynamic = dynamicfake.NewSimpleDynamicClient(scheme.Scheme, params...)
	a, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	p := a.(*Plugin)
	stop := make(chan struct{})
	p.params.stop = stop
	t.Cleanup(func() { close(stop) })
	return &env{t: t, plugin: p}
}

// admit runs the plugin on a and fails the test on an error.
func (e *env) admit(a *admission.Attributes) *admission.Result {
	e.t.Helper()
	res, err := e.plugin.Admit(context.Background(), a)
	if err != nil {
		e.t.Fatalf("Admit: %v", err)
	}
	return res
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// deploymentPolicy is a policy on creating and updating deployments,
// failing closed, with one validation.
func deploymentPolicy(name, expression string) *admv1.ValidatingAdmissionPolicy {
	return &admv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec: admv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admv1.Fail),
			MatchConstraints: &admv1.MatchResources{
				MatchPolicy: ptr.To(admv1.Equivalent),
				ResourceRules: []admv1.NamedRuleWithOperations{{RuleWithOperations: admv1.RuleWithOperations{
					Operations: []admv1.OperationType{admv1.Create, admv1.Update},
					Rule:       admv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				}}},
			},
			Validations: []admv1.Validation{{Expression: expression}},
		},
	}
}

// binding binds policy with actions.
func binding(name, policy string, actions ...admv1.ValidationAction) *admv1.ValidatingAdmissionPolicyBinding {
	return &admv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: actions},
	}
}

// deployment is a request creating a deployment of replicas in ns.
func deployment(t *testing.T, ns, name string, replicas int32, labels map[string]string) *admission.Attributes {
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
	}
	return plugintest.Attrs(t, admissionv1.Create, "apps", "v1", "Deployment", "deployments", ns, name, d, nil)
}
