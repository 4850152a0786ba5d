package escalation

import (
	"context"
	"errors"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// checkRules allows when user holds every permission of rules in namespace
// ("" for cluster-wide, where only cluster-wide grants count, as kube's
// rule resolver does for ClusterRoles and ClusterRoleBindings), and
// otherwise denies the write of the object gr/name as kube does: 403 with
// the permissions missing.
func (e *escalation) checkRules(ctx context.Context, user authenticationv1.UserInfo, gr schema.GroupResource, name string, rules []rbacv1.PolicyRule, namespace string) (*admission.Result, error) {
	s, err := e.reviewer.confirm(ctx, user, queriesFor(rules, namespace))
	if err != nil {
		return nil, err
	}
	if len(s.missing) == 0 {
		return admission.Allow(), nil
	}
	return forbidden(gr, name, notHeldMessage(user, s)), nil
}

// may asks whether user may do q itself (escalate a role, bind one): kube's
// shortcut before comparing rules. Authz not answering is an error, not a
// "no": kube would go on to compare rules it resolves locally, but every one
// of our comparisons would ask the same unreachable authz.
func (e *escalation) may(ctx context.Context, user authenticationv1.UserInfo, q query) (bool, error) {
	v, err := e.reviewer.ask(ctx, user, q)
	if err != nil {
		return false, err
	}
	return v.allowed, nil
}

// forbidden is kube's Forbidden error for writing gr/name, as a denial.
func forbidden(gr schema.GroupResource, name, msg string) *admission.Result {
	st := apierrors.NewForbidden(gr, name, errors.New(msg)).ErrStatus
	return &admission.Result{Status: &st}
}
