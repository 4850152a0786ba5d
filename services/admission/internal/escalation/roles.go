package escalation

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

var (
	rolesResource        = rbacv1.Resource(resourceRoles)
	clusterRolesResource = rbacv1.Resource(resourceClusterRoles)
)

// fullAuthority is every permission there is: kube requires it to set or
// change an aggregationRule, which can gather any rule of any ClusterRole.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// aggregationMessage is kube's reason for refusing an aggregationRule.
const aggregationMessage = "must have cluster-admin privileges to use the aggregationRule"

// admitRole checks a Role's rules in its namespace.
func (e *escalation) admitRole(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	var role, old rbacv1.Role
	if err := decode(a.Object, &role); err != nil {
		return nil, err
	}
	namespace := a.Namespace
	if namespace == "" {
		namespace = role.Namespace
	}
	if a.Operation == admissionv1.Update {
		if err := decode(a.OldObject, &old); err != nil {
			return nil, err
		}
		if onlyGCFields(&role, &old) {
			return admission.Allow(), nil
		}
	}
	ok, err := e.may(ctx, a.UserInfo, escalateQuery(a, rolesResource, namespace))
	if err != nil {
		return nil, err
	}
	if ok {
		return admission.Allow(), nil
	}
	return e.checkRules(ctx, a.UserInfo, rolesResource, role.Name, role.Rules, namespace)
}

// admitClusterRole checks a ClusterRole's rules cluster-wide and, when it
// aggregates (or did before the update), that the writer holds everything.
func (e *escalation) admitClusterRole(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	var role, old rbacv1.ClusterRole
	if err := decode(a.Object, &role); err != nil {
		return nil, err
	}
	if a.Operation == admissionv1.Update {
		if err := decode(a.OldObject, &old); err != nil {
			return nil, err
		}
		if onlyGCFields(&role, &old) {
			return admission.Allow(), nil
		}
	}
	ok, err := e.may(ctx, a.UserInfo, escalateQuery(a, clusterRolesResource, ""))
	if err != nil {
		return nil, err
	}
	if ok {
		return admission.Allow(), nil
	}
	res, err := e.checkRules(ctx, a.UserInfo, clusterRolesResource, role.Name, role.Rules, "")
	if err != nil || !res.Allowed {
		return res, err
	}
	if !aggregates(&role) && !aggregates(&old) {
		return res, nil
	}
	res, err = e.checkRules(ctx, a.UserInfo, clusterRolesResource, role.Name, fullAuthority, "")
	if err != nil || res.Allowed {
		return res, err
	}
	return forbidden(clusterRolesResource, role.Name, aggregationMessage), nil
}

// escalateQuery asks whether the writer may escalate the role written. As
// kube takes the name from the request's URL, a create asks without a name:
// resourceNames cannot grant escalate on a role that does not exist yet.
func escalateQuery(a *admission.Attributes, gr schema.GroupResource, namespace string) query {
	q := query{verb: "escalate", namespace: namespace, group: gr.Group, resource: gr.Resource}
	if a.Operation == admissionv1.Update {
		q.name = a.Name
	}
	return q
}

// aggregates reports whether r gathers other ClusterRoles' rules.
func aggregates(r *rbacv1.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}
