package registry

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// configMapCreatesWhen are validating rules for config map creates in
// namespaces in the state cond describes.
func configMapCreatesWhen(cond *admission.NamespaceCondition) admission.Rules {
	return admission.Rules{Validating: []admission.Rule{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"configmaps"}},
		},
		Namespace: cond,
	}}}
}

func createConfigMap(t *testing.T, ctx context.Context, c typedcorev1.ConfigMapInterface, ns, name string) {
	t.Helper()
	cm := newConfigMap(name)
	cm.Namespace = ns
	if _, err := c.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A rule narrowed to namespaces holding a ResourceQuota sends admission
// the writes in such namespaces only, checked against the registry's own
// storage at the moment of the write: the first write after a quota is
// created is already reviewed.
func TestRemoteAdmissionHoldingCondition(t *testing.T) {
	priv, pub := keyPair(t, t.TempDir(), "registry.key")
	rules := configMapCreatesWhen(&admission.NamespaceCondition{Holding: []metav1.GroupResource{{Resource: "resourcequotas"}}})
	svc := newRulesAdmission(t, pub, rules)
	c := startWithRules(t, svc, priv)
	ctx := context.Background()
	const ns = "default"
	cms := c.CoreV1().ConfigMaps(ns)

	createConfigMap(t, ctx, cms, ns, "before")
	if got := svc.take(); len(got) != 0 {
		t.Fatalf("a create in a namespace without a quota was reviewed: %v", got)
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": resource.MustParse("10")}}}
	if _, err := c.CoreV1().ResourceQuotas("default").Create(ctx, quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc.take()
	createConfigMap(t, ctx, cms, ns, "after")
	if got := svc.take(); !slices.Equal(got, []string{"validating configmaps"}) {
		t.Fatalf("reviews of a create in a namespace with a quota: %v, want one validating review", got)
	}
	if err := c.CoreV1().ResourceQuotas("default").Delete(ctx, "q", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	svc.take()
	createConfigMap(t, ctx, cms, ns, "gone")
	if got := svc.take(); len(got) != 0 {
		t.Fatalf("a create after the quota was deleted was reviewed: %v", got)
	}
}

// A rule narrowed to terminating namespaces sends admission the writes in
// a namespace from the moment its deletion begins.
func TestRemoteAdmissionPhaseCondition(t *testing.T) {
	priv, pub := keyPair(t, t.TempDir(), "registry.key")
	rules := configMapCreatesWhen(&admission.NamespaceCondition{Phases: []string{string(corev1.NamespaceTerminating)}})
	svc := newRulesAdmission(t, pub, rules)
	c := startWithRules(t, svc, priv)
	ctx := context.Background()
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "going"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"example.com/hold"}}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, namespace, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const ns = "going"
	cms := c.CoreV1().ConfigMaps(ns)
	createConfigMap(t, ctx, cms, ns, "active")
	if got := svc.take(); len(got) != 0 {
		t.Fatalf("a create in an active namespace was reviewed: %v", got)
	}
	if err := c.CoreV1().Namespaces().Delete(ctx, "going", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	svc.take()
	// The rule's stand-in admission allows it; what matters is that it was asked.
	createConfigMap(t, ctx, cms, ns, "terminating")
	if got := svc.take(); !slices.Equal(got, []string{"validating configmaps"}) {
		t.Fatalf("reviews of a create in a terminating namespace: %v, want one validating review", got)
	}
}
