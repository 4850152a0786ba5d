package printers

import (
	"strings"

	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Role is the table of rbac.authorization.k8s.io/v1 roles. Kube has no
// printer for roles and serves its default table, NAME CREATED AT.
var Role = Default

// ClusterRole is the table of cluster roles, kube's default table like Role.
var ClusterRole = Default

// RoleBinding is the table of role bindings: NAME ROLE AGE, and with -o
// wide USERS GROUPS SERVICEACCOUNTS.
var RoleBinding = bindingColumns("roleBinding", rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"])

// ClusterRoleBinding is the table of cluster role bindings, laid out as
// RoleBinding's.
var ClusterRoleBinding = bindingColumns("clusterRoleBinding", rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"])

// bindingColumns builds the binding table; the two kinds differ only in the
// words of their descriptions.
func bindingColumns(kind, roleRefDoc string) []Column {
	return []Column{
		nameColumn(),
		{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Role", Type: "string", Description: roleRefDoc},
			Cell: func(u *unstructured.Unstructured) any {
				return str(u.Object, "roleRef", "kind") + "/" + str(u.Object, "roleRef", "name")
			}},
		ageColumn(),
		subjectColumn("Users", "Users in the "+kind, "User"),
		subjectColumn("Groups", "Groups in the "+kind, "Group"),
		subjectColumn("ServiceAccounts", "ServiceAccounts in the "+kind, "ServiceAccount"),
	}
}

// subjectColumn is a wide column listing the binding's subjects of one
// kind, service accounts as "namespace/name".
func subjectColumn(name, description, kind string) Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{Name: name, Type: "string", Priority: 1, Description: description},
		Cell: func(u *unstructured.Unstructured) any {
			var names []string
			for _, s := range objects(u.Object, "subjects") {
				if str(s, "kind") != kind {
					continue
				}
				if kind == "ServiceAccount" {
					names = append(names, str(s, "namespace")+"/"+str(s, "name"))
				} else {
					names = append(names, str(s, "name"))
				}
			}
			return strings.Join(names, ", ")
		},
	}
}
