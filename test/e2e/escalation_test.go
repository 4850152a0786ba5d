package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// eveToken is the user of the escalation test: a namespace admin of
// "team" who may write roles and bindings there, but not grant more than
// she holds.
const eveToken = "eve-token-0123456789"

// notHeld is the escalation plugin's refusal, kube's message.
const notHeld = "attempting to grant RBAC permissions not currently held"

// rolesPrefix holds the Roles of namespace team in etcd.
const teamRolesPrefix = "/registry/rbac.authorization.k8s.io/roles/team/"

// TestRBACEscalationPrevention checks, through the whole split stack, that
// a user who may write roles and bindings cannot grant through them what
// she does not hold, unless given escalate or bind, and that the admin can.
func TestRBACEscalationPrevention(t *testing.T) {
	s := startAdmissionStack(t, eveToken+`,eve,uid-eve,"developers"`)
	admin := s.Client(t, s.AdminToken)
	eve := s.Client(t, eveToken)
	const ns = "team"
	createNamespace(t, admin, ns)
	grant(t, admin, ns, "eve-rbac-writer",
		rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"create", "update"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}})
	// authz learns of the grant through its informers.
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		_, err := eve.CoreV1().ConfigMaps(ns).List(c, metav1.ListOptions{})
		return err == nil, nil
	}) {
		t.Fatal("eve never allowed to list configmaps in team")
	}

	readConfigMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}
	readSecrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}
	// Nothing eve may come to hold (the bind subtest gives her admin in
	// the namespace, which reads secrets) grants this, so only escalate can.
	readWidgets := rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}
	adminBinding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "eve-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "eve"}},
	}

	t.Run("held rules", func(t *testing.T) {
		if _, err := eve.RbacV1().Roles(ns).Create(ctx(t), role("cm-reader", readConfigMaps), metav1.CreateOptions{}); err != nil {
			t.Errorf("eve granting get configmaps, which she holds: %v", err)
		}
	})
	t.Run("rules not held", func(t *testing.T) {
		before := s.Etcd.Snapshot(t, teamRolesPrefix)
		_, err := eve.RbacV1().Roles(ns).Create(ctx(t), role("secret-reader", readSecrets), metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), notHeld) {
			t.Errorf("eve granting get secrets: %v, want Forbidden: %s", err, notHeld)
		}
		assertSameSnapshot(t, before, s.Etcd.Snapshot(t, teamRolesPrefix))
		kc := s.Aggregator.Kubeconfig(t, "eve", eveToken)
		out, err := s.Aggregator.Kubectl(t, kc, "", "create", "role", "secret-reader", "-n", ns, "--verb=get", "--resource=secrets")
		if !kubectlForbidden(err, out, "user \"eve\"") || !strings.Contains(out, notHeld) {
			t.Errorf("kubectl create role granting get secrets as eve: %v\n%s\nwant Forbidden: %s", err, out, notHeld)
		}
		assertSameSnapshot(t, before, s.Etcd.Snapshot(t, teamRolesPrefix))
	})
	t.Run("bind", func(t *testing.T) {
		_, refused := eve.RbacV1().RoleBindings(ns).Create(ctx(t), adminBinding, metav1.CreateOptions{})
		if !apierrors.IsForbidden(refused) || !strings.Contains(refused.Error(), notHeld) {
			t.Errorf("eve binding ClusterRole admin: %v, want Forbidden: %s", refused, notHeld)
		}
		grant(t, admin, ns, "eve-bind-admin", rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName},
			Resources: []string{"clusterroles"}, ResourceNames: []string{"admin"}, Verbs: []string{"bind"}})
		untilEveMay(t, "bind ClusterRole admin", refused, func(c context.Context) error {
			_, err := eve.RbacV1().RoleBindings(ns).Create(c, adminBinding, metav1.CreateOptions{})
			return err
		})
	})
	t.Run("escalate", func(t *testing.T) {
		_, refused := eve.RbacV1().Roles(ns).Create(ctx(t), role("widget-reader", readWidgets), metav1.CreateOptions{})
		if !apierrors.IsForbidden(refused) || !strings.Contains(refused.Error(), notHeld) {
			t.Fatalf("eve granting get widgets before escalate: %v, want Forbidden: %s", refused, notHeld)
		}
		grant(t, admin, ns, "eve-escalate", rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName},
			Resources: []string{"roles"}, Verbs: []string{"escalate"}})
		untilEveMay(t, "grant get widgets with escalate", refused, func(c context.Context) error {
			_, err := eve.RbacV1().Roles(ns).Create(c, role("widget-reader", readWidgets), metav1.CreateOptions{})
			return err
		})
	})
	t.Run("admin", func(t *testing.T) {
		all := rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}
		if _, err := admin.RbacV1().Roles(ns).Create(ctx(t), role("everything", all), metav1.CreateOptions{}); err != nil {
			t.Errorf("system:masters creating any role: %v", err)
		}
		if _, err := admin.RbacV1().ClusterRoles().Create(ctx(t), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "everything"},
			Rules: []rbacv1.PolicyRule{all, {NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}}}, metav1.CreateOptions{}); err != nil {
			t.Errorf("system:masters creating any cluster role: %v", err)
		}
	})
}

// untilEveMay polls write (one of eve's, refused until authz sees a new
// grant) until it succeeds; the only failure it accepts meanwhile is the
// refusal seen before the grant (same code and message).
func untilEveMay(t *testing.T, what string, refused error, write func(context.Context) error) {
	t.Helper()
	var last error
	if !polltest.Holds(t, admissionWait, func(c context.Context) (bool, error) {
		last = write(c)
		if last != nil && (refused == nil || last.Error() != refused.Error()) {
			return false, fmt.Errorf("eve trying to %s: %w (before the grant: %v)", what, last, refused)
		}
		return last == nil, nil
	}) {
		t.Errorf("eve may still not %s after %v: %v", what, admissionWait, last)
	}
}

// grant gives eve, as the admin, a Role in ns with rules.
func grant(t *testing.T, admin kubernetes.Interface, ns, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	grantUser(t, admin, ns, "eve", name, rules...)
}

// grantUser gives user, as the admin, a Role in ns named name with rules.
func grantUser(t *testing.T, admin kubernetes.Interface, ns, user, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	c := ctx(t)
	if _, err := admin.RbacV1().Roles(ns).Create(c, role(name, rules...), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(c, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// role is a Role named name with rules.
func role(name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}
