package rbac

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
)

// serviceAccountUsername is the user name authn gives a service account.
func serviceAccountUsername(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// subjectKind says which of a user's attributes a binding subject is
// matched against.
type subjectKind int

const (
	// byUser matches the user name (User and ServiceAccount subjects).
	byUser subjectKind = iota
	// byGroup matches one of the user's groups (Group subjects).
	byGroup
)

// subjectMatch returns what a binding subject matches a user by, and false
// when it can match no user. As in kube, a ServiceAccount subject without
// a namespace takes the namespace of its RoleBinding, and in a
// ClusterRoleBinding (bindingNamespace "") matches nobody; a subject of
// another kind matches nobody.
func subjectMatch(s rbacv1.Subject, bindingNamespace string) (subjectKind, string, bool) {
	switch s.Kind {
	case rbacv1.UserKind:
		return byUser, s.Name, true
	case rbacv1.GroupKind:
		return byGroup, s.Name, true
	case rbacv1.ServiceAccountKind:
		namespace := s.Namespace
		if namespace == "" {
			namespace = bindingNamespace
		}
		if namespace == "" {
			return 0, "", false
		}
		return byUser, serviceAccountUsername(namespace, s.Name), true
	}
	return 0, "", false
}

// describeSubject names a subject in an "allowed by" reason, as kube does.
func describeSubject(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind != rbacv1.ServiceAccountKind {
		return fmt.Sprintf("%s %q", s.Kind, s.Name)
	}
	namespace := s.Namespace
	if namespace == "" {
		namespace = bindingNamespace
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+namespace)
}

// describeBinding is the source of an "allowed by" reason, as kube words it:
// `ClusterRoleBinding "admins" of ClusterRole "admin" to Group "ops"`.
func describeBinding(kind, name, namespace string, ref rbacv1.RoleRef, s rbacv1.Subject) string {
	if namespace != "" {
		name += "/" + namespace
	}
	return fmt.Sprintf("%s %q of %s %q to %s", kind, name, ref.Kind, ref.Name, describeSubject(s, namespace))
}
