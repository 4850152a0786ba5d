package escalation

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// roleGetter reads roles live, for when the informers have not seen them.
type roleGetter interface {
	role(ctx context.Context, namespace, name string) ([]rbacv1.PolicyRule, error)
	clusterRole(ctx context.Context, name string) ([]rbacv1.PolicyRule, error)
}

// liveGetter reads roles through the API.
type liveGetter struct {
	client rbacclient.RbacV1Interface
}

func (g liveGetter) role(ctx context.Context, namespace, name string) ([]rbacv1.PolicyRule, error) {
	r, err := g.client.Roles(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return r.Rules, nil
}

func (g liveGetter) clusterRole(ctx context.Context, name string) ([]rbacv1.PolicyRule, error) {
	r, err := g.client.ClusterRoles().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return r.Rules, nil
}

// referencedRules are the rules of the role ref names, for a binding in
// namespace. They come from the informer, or from a live read when it has
// not seen the role (it may have been created a moment ago, or the
// informer may not have synced yet). A role that does not exist is a
// denial with kube's NotFound; a read that fails is an error.
func (e *escalation) referencedRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, *admission.Result, error) {
	rules, err := e.cachedRules(ref, namespace)
	if apierrors.IsNotFound(err) {
		rules, err = e.liveRules(ctx, ref, namespace)
	}
	if apierrors.IsNotFound(err) {
		st := apierrors.NewNotFound(roleResource(ref), ref.Name).ErrStatus
		return nil, &admission.Result{Status: &st}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("escalation: reading %s %q: %w", ref.Kind, ref.Name, err)
	}
	return rules, nil, nil
}

func (e *escalation) cachedRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	if ref.Kind == "Role" {
		r, err := e.roles.Roles(namespace).Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	r, err := e.clusterRoles.Get(ref.Name)
	if err != nil {
		return nil, err
	}
	return r.Rules, nil
}

func (e *escalation) liveRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	if ref.Kind == "Role" {
		return e.roleGetter.role(ctx, namespace, ref.Name)
	}
	return e.roleGetter.clusterRole(ctx, ref.Name)
}

// roleResource is the resource ref names.
func roleResource(ref rbacv1.RoleRef) schema.GroupResource {
	if ref.Kind == "Role" {
		return rolesResource
	}
	return clusterRolesResource
}
