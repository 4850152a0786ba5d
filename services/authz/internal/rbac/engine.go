package rbac

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/casbin/casbin/v2/model"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// Config configures an Engine. It has no fields yet: the engine's policy
// comes from Load, and the struct exists so options can be added without
// changing New's signature.
type Config struct{}

// Engine is the RBAC authorization engine. It answers nothing until the
// first Load; after that every Authorize sees one whole loaded policy.
type Engine struct {
	// model is the parsed model.conf, copied into every role enforcer.
	model model.Model
	// loading serializes Load, so revisions are checked and swapped in
	// order.
	loading sync.Mutex
	policy  atomic.Pointer[policy]
}

var _ authz.Authorizer = (*Engine)(nil)

// New returns an engine with no policy loaded.
func New(_ Config) (*Engine, error) {
	m, err := parseModel()
	if err != nil {
		return nil, err
	}
	return &Engine{model: m}, nil
}

// Load replaces the engine's policy with one built from the given objects,
// as of revision (0 meaning unversioned). The new policy is built aside
// and swapped in at once: concurrent Authorize calls see either the old
// policy or the new one. The caller keeps ownership of the slices.
//
// Objects are taken as kube would find them: a binding to a role that does
// not exist grants nothing (a refusal's reason names the missing role), a
// ClusterRole with an aggregationRule gets the rules of the ClusterRoles it
// selects, whatever rules it holds itself. A revision older than the loaded
// one is refused with ErrStaleRevision, so a delayed Load cannot bring an
// old policy back.
func (e *Engine) Load(roles []rbacv1.Role, clusterRoles []rbacv1.ClusterRole,
	bindings []rbacv1.RoleBinding, clusterBindings []rbacv1.ClusterRoleBinding, revision int64) error {
	if revision < 0 {
		return fmt.Errorf("%w: %d", ErrInvalidRevision, revision)
	}
	e.loading.Lock()
	defer e.loading.Unlock()
	if current := e.policy.Load(); current != nil && revision < current.revision {
		return fmt.Errorf("%w: loaded %d, got %d", ErrStaleRevision, current.revision, revision)
	}
	p, err := buildPolicy(e.model, roles, clusterRoles, bindings, clusterBindings, revision)
	if err != nil {
		return err
	}
	e.policy.Store(p)
	return nil
}

// Authorize implements authz.Authorizer with kube's RBAC semantics:
// DecisionAllow when a rule of a role bound to the user (by name, or by one
// of the groups authentication gave it) matches, DecisionNoOpinion
// otherwise. It never denies, so a chain asks its next engine. The result
// carries the revision of the policy it was computed at.
func (e *Engine) Authorize(_ context.Context, a authz.Attributes) (authz.Result, error) {
	p := e.policy.Load()
	if p == nil {
		return authz.Result{Decision: authz.DecisionNoOpinion}, fmt.Errorf("%w: %w", authz.ErrEvaluation, ErrNotLoaded)
	}
	return p.authorize(&a)
}
