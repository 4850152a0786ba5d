package escalation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	admissionv1 "k8s.io/api/admission/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// PluginName is the name the service registers the plugin under.
const PluginName = "RBACEscalation"

// The resources the plugin guards, all in rbacv1.GroupName.
const (
	resourceRoles               = "roles"
	resourceClusterRoles        = "clusterroles"
	resourceRoleBindings        = "rolebindings"
	resourceClusterRoleBindings = "clusterrolebindings"
)

// escalation is the plugin: it reads referenced roles through the informers'
// listers (with a live GET when they miss) and asks authz about the writer.
type escalation struct {
	reviewer     *reviewer
	roles        rbacv1listers.RoleLister
	clusterRoles rbacv1listers.ClusterRoleLister
	roleGetter   roleGetter
	log          *slog.Logger
}

// New builds the RBACEscalation validating admitter. It needs deps.Client
// (SubjectAccessReviews and live reads) and deps.Informers (roles and
// cluster roles a binding references).
func New(deps plugin.Deps) (admission.Admitter, error) {
	if deps.Client == nil {
		return nil, fmt.Errorf("%w: %s needs a client", admission.ErrInvalidConfig, PluginName)
	}
	if deps.Informers == nil {
		return nil, fmt.Errorf("%w: %s needs informers", admission.ErrInvalidConfig, PluginName)
	}
	log := deps.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rbac := deps.Informers.Rbac().V1()
	// Asking for the informers here registers them with the factory, which
	// the service starts after every plugin was built.
	roles, clusterRoles := rbac.Roles(), rbac.ClusterRoles()
	roles.Informer()
	clusterRoles.Informer()
	e := &escalation{
		reviewer:     newReviewer(deps.Client),
		roles:        roles.Lister(),
		clusterRoles: clusterRoles.Lister(),
		roleGetter:   liveGetter{client: deps.Client.RbacV1()},
		log:          log,
	}
	return admission.Validating(admission.AdmitterFunc(e.Admit)), nil
}

// Admit implements admission.Admitter. Only creates and updates of the four
// RBAC resources are checked; deletes never grant anything, and a dry run is
// checked like a real write, as kube does.
func (e *escalation) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if a.Resource.Group != rbacv1.GroupName || a.SubResource != "" {
		return admission.Allow(), nil
	}
	if a.Operation != admissionv1.Create && a.Operation != admissionv1.Update {
		return admission.Allow(), nil
	}
	if privileged(a.UserInfo) {
		return admission.Allow(), nil
	}
	res, err := e.admitResource(ctx, a)
	if err != nil {
		e.log.WarnContext(ctx, "escalation check failed", "resource", a.Resource.Resource,
			"namespace", a.Namespace, "name", a.Name, "user", a.UserInfo.Username, "error", err)
		return nil, err
	}
	return res, nil
}

func (e *escalation) admitResource(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	switch a.Resource.Resource {
	case resourceRoles:
		return e.admitRole(ctx, a)
	case resourceClusterRoles:
		return e.admitClusterRole(ctx, a)
	case resourceRoleBindings:
		return e.admitRoleBinding(ctx, a)
	case resourceClusterRoleBindings:
		return e.admitClusterRoleBinding(ctx, a)
	}
	return admission.Allow(), nil
}

// errDecode means the object in the review is not the RBAC object its
// resource says; the registry decoded and validated it before, so this is a
// broken caller, not a user error.
var errDecode = errors.New("escalation: cannot decode object")
