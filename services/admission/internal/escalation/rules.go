package escalation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests Admit checks: creates and updates of the four RBAC
// resources, not their subresources.
func Rules() admission.Rules {
	resources := []string{resourceRoles, resourceClusterRoles, resourceRoleBindings, resourceClusterRoleBindings}
	return admission.Rules{Validating: []admission.Rule{
		plugin.Rule(rbacv1.GroupName, resources, admissionregistrationv1.Create, admissionregistrationv1.Update),
	}}
}
