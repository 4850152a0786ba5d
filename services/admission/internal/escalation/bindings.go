package escalation

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

var (
	roleBindingsResource        = rbacv1.Resource(resourceRoleBindings)
	clusterRoleBindingsResource = rbacv1.Resource(resourceClusterRoleBindings)
)

// admitRoleBinding checks a RoleBinding in its namespace: the rules it
// grants apply only there.
func (e *escalation) admitRoleBinding(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	var binding, old rbacv1.RoleBinding
	if err := decode(a.Object, &binding); err != nil {
		return nil, err
	}
	namespace := a.Namespace
	if namespace == "" {
		namespace = binding.Namespace
	}
	if a.Operation == admissionv1.Update {
		if err := decode(a.OldObject, &old); err != nil {
			return nil, err
		}
		if onlyGCFields(&binding, &old) {
			return admission.Allow(), nil
		}
	}
	return e.admitBinding(ctx, a, roleBindingsResource, binding.Name, binding.RoleRef, namespace)
}

// admitClusterRoleBinding checks a ClusterRoleBinding cluster-wide.
func (e *escalation) admitClusterRoleBinding(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	var binding, old rbacv1.ClusterRoleBinding
	if err := decode(a.Object, &binding); err != nil {
		return nil, err
	}
	if a.Operation == admissionv1.Update {
		if err := decode(a.OldObject, &old); err != nil {
			return nil, err
		}
		if onlyGCFields(&binding, &old) {
			return admission.Allow(), nil
		}
	}
	return e.admitBinding(ctx, a, clusterRoleBindingsResource, binding.Name, binding.RoleRef, "")
}

// admitBinding allows a binding (named name, of resource gr, in namespace)
// when the writer may bind the role it references, or else holds every rule
// of that role where the binding grants it. A binding to a missing role is
// thus allowed only with bind, and refused with the role's NotFound
// otherwise, as in kube.
func (e *escalation) admitBinding(ctx context.Context, a *admission.Attributes, gr schema.GroupResource, name string, ref rbacv1.RoleRef, namespace string) (*admission.Result, error) {
	q, ok := bindQuery(ref, namespace)
	if !ok {
		return admission.Deny(http.StatusBadRequest, fmt.Sprintf("unsupported role reference: kind %q in namespace %q", ref.Kind, namespace)), nil
	}
	may, err := e.may(ctx, a.UserInfo, q)
	if err != nil {
		return nil, err
	}
	if may {
		return admission.Allow(), nil
	}
	rules, denial, err := e.referencedRules(ctx, ref, namespace)
	if err != nil || denial != nil {
		return denial, err
	}
	return e.checkRules(ctx, a.UserInfo, gr, name, rules, namespace)
}

// bindQuery asks whether the writer may bind ref in the binding's namespace
// ("" for a ClusterRoleBinding), which lets an admin delegate binding one
// ClusterRole in one namespace. False for a kind that is no role, and for a
// Role outside a namespace (validation refuses both before admission).
func bindQuery(ref rbacv1.RoleRef, namespace string) (query, bool) {
	q := query{verb: "bind", namespace: namespace, group: ref.APIGroup, name: ref.Name}
	switch ref.Kind {
	case "ClusterRole":
		q.resource = resourceClusterRoles
	case "Role":
		if namespace == "" {
			return query{}, false
		}
		q.resource = resourceRoles
	default:
		return query{}, false
	}
	return q, true
}
