package rbac

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// objects are the RBAC objects of one test policy.
type objects struct {
	roles           []rbacv1.Role
	clusterRoles    []rbacv1.ClusterRole
	bindings        []rbacv1.RoleBinding
	clusterBindings []rbacv1.ClusterRoleBinding
}

// load returns an engine with objs loaded at revision.
func load(t testing.TB, objs objects, revision int64) *Engine {
	t.Helper()
	e, err := New(Config{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := e.Load(objs.roles, objs.clusterRoles, objs.bindings, objs.clusterBindings, revision); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return e
}

// authorize asks e and fails the test on an error.
func authorize(t testing.TB, e *Engine, a authz.Attributes) authz.Result {
	t.Helper()
	res, err := e.Authorize(context.Background(), a)
	if err != nil {
		t.Fatalf("Authorize(%+v): %v", a, err)
	}
	return res
}

func user(name string, groups ...string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: name, Groups: groups}
}

// res is a resource request; resource may carry a subresource ("pods/log").
func res(u authenticationv1.UserInfo, verb, group, resource, namespace, name string) authz.Attributes {
	a := authz.Attributes{User: u, Verb: verb, APIGroup: group, Namespace: namespace, Name: name, ResourceRequest: true}
	a.Resource, a.Subresource, _ = strings.Cut(resource, "/")
	return a
}

// nonRes is a non-resource request.
func nonRes(u authenticationv1.UserInfo, verb, path string) authz.Attributes {
	return authz.Attributes{User: u, Verb: verb, Path: path}
}

// resourceRule grants verbs on resources of groups, optionally only on names.
func resourceRule(verbs, groups, resources []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

// urlRule grants verbs on non-resource URLs.
func urlRule(verbs []string, urls ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: urls}
}

func list(s ...string) []string { return s }

func clusterRoleOf(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func labelled(r rbacv1.ClusterRole, labels map[string]string) rbacv1.ClusterRole {
	r.Labels = labels
	return r
}

func aggregating(name string, selectors ...metav1.LabelSelector) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: name},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: selectors},
	}
}

func roleOf(namespace, name string, rules ...rbacv1.PolicyRule) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

func clusterBinding(name, clusterRole string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   subjects,
	}
}

// binding is a RoleBinding in namespace to the role of kind ("Role" or
// "ClusterRole") named role.
func binding(namespace, name, kind, role string, subjects ...rbacv1.Subject) rbacv1.RoleBinding {
	return rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role},
		Subjects:   subjects,
	}
}
