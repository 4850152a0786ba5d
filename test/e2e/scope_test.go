package e2e

import (
	"context"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// tenantToken is a user who holds rights in her own namespace only.
const tenantToken = "tenant-token-0123456789"

// TestNamespaceUserCannotReachOtherNamespaces is the attack a tenant tried:
// with view, or patch and delete on namespaces, granted in her own
// namespace t, she addressed other namespaces through
// /api/v1/namespaces/t/namespaces/<victim>, which the aggregator
// authorizes inside t. The registry must serve nothing for such a path:
// no list of every namespace, no label on kube-system, no deleted victim.
func TestNamespaceUserCannotReachOtherNamespaces(t *testing.T) {
	s := startAdmissionStack(t, tenantToken+`,tenant,uid-tenant`)
	admin := s.Client(t, s.AdminToken)
	tenant := s.Client(t, tenantToken)
	createNamespace(t, admin, "t")
	createNamespace(t, admin, "victim")
	grantUser(t, admin, "t", "tenant", "namespace-keeper", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"},
		Verbs: []string{"get", "list", "watch", "patch", "delete"}})
	// authz learns of the grant through its informers: the tenant may then
	// read her own namespace, as kube lets a RoleBinding in it grant.
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		_, err := tenant.CoreV1().Namespaces().Get(c, "t", metav1.GetOptions{})
		return err == nil, nil
	}) {
		t.Fatal("the tenant was never allowed to get her own namespace")
	}

	before := s.Etcd.Snapshot(t, namespacesPrefix)
	rest := tenant.CoreV1().RESTClient()
	err := rest.Get().AbsPath("/api/v1/namespaces/t/namespaces").Do(ctx(t)).Error()
	if !apierrors.IsNotFound(err) {
		t.Errorf("listing namespaces under namespace t: %v, want NotFound", err)
	}
	err = rest.Patch(types.MergePatchType).AbsPath("/api/v1/namespaces/t/namespaces/kube-system").
		Body([]byte(`{"metadata":{"labels":{"owned":"yes"}}}`)).Do(ctx(t)).Error()
	if !apierrors.IsNotFound(err) {
		t.Errorf("patching kube-system under namespace t: %v, want NotFound", err)
	}
	err = rest.Delete().AbsPath("/api/v1/namespaces/t/namespaces/victim").Do(ctx(t)).Error()
	if !apierrors.IsNotFound(err) {
		t.Errorf("deleting namespace victim under namespace t: %v, want NotFound", err)
	}
	assertSameSnapshot(t, before, s.Etcd.Snapshot(t, namespacesPrefix))
	// The namespaces themselves are still out of her reach the right way.
	if _, err := tenant.CoreV1().Namespaces().Get(ctx(t), "victim", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("getting namespace victim: %v, want Forbidden", err)
	}
}
