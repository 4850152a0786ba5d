package authz

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/authz/internal/rbac"

	"github.com/kubesplit/kubesplit/pkg/apiwait"
	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// policySync keeps an rbac.Engine's policy equal to the RBAC objects in
// the API: informers on the four kinds, and a loop that rebuilds the whole
// policy after each burst of changes.
type policySync struct {
	engine   *rbac.Engine
	factory  informers.SharedInformerFactory
	synced   []cache.InformerSynced
	debounce time.Duration
	log      *slog.Logger

	roles           rbaclisters.RoleLister
	clusterRoles    rbaclisters.ClusterRoleLister
	bindings        rbaclisters.RoleBindingLister
	clusterBindings rbaclisters.ClusterRoleBindingLister

	// revision is the highest resourceVersion seen on any event, the etcd
	// revision the informers' state is at least as new as; it only grows,
	// so Load never sees it go back.
	revision atomic.Int64
	// changed holds at most one pending "rebuild" signal: the loop reads
	// one however many changes came in meanwhile.
	changed chan struct{}
	// loaded is set once the informers synced and a policy was loaded.
	loaded atomic.Bool
	// onLoad, when set before start, is told the revision of every policy
	// loaded, so that it can be pushed to the aggregator's cache.
	onLoad func(revision int64)
}

// newPolicySync registers the informers on factory; start runs them.
func newPolicySync(engine *rbac.Engine, factory informers.SharedInformerFactory, debounce time.Duration, log *slog.Logger) (*policySync, error) {
	v1 := factory.Rbac().V1()
	s := &policySync{
		engine: engine, factory: factory, debounce: debounce, log: log,
		roles: v1.Roles().Lister(), clusterRoles: v1.ClusterRoles().Lister(),
		bindings: v1.RoleBindings().Lister(), clusterBindings: v1.ClusterRoleBindings().Lister(),
		changed: make(chan struct{}, 1),
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    s.observe,
		UpdateFunc: func(_, obj any) { s.observe(obj) },
		DeleteFunc: s.observe,
	}
	for _, inf := range []cache.SharedIndexInformer{
		v1.Roles().Informer(), v1.ClusterRoles().Informer(),
		v1.RoleBindings().Informer(), v1.ClusterRoleBindings().Informer(),
	} {
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			return nil, err
		}
		s.synced = append(s.synced, reg.HasSynced)
	}
	return s, nil
}

// start runs the informers, once the API answers through client, and the
// rebuild loop until ctx ends.
func (s *policySync) start(ctx context.Context, client kubernetes.Interface) {
	apiwait.Start(ctx, client, s.factory.Start)
	go s.run(ctx)
}

// observe notes an event's revision and asks for a rebuild.
func (s *policySync) observe(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if m, err := meta.Accessor(obj); err == nil {
		if rv, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64); err == nil {
			s.raiseRevision(rv)
		}
	}
	select {
	case s.changed <- struct{}{}:
	default: // a rebuild is pending already; it will see this change
	}
}

// raiseRevision sets revision to rv when rv is higher.
func (s *policySync) raiseRevision(rv int64) {
	for {
		cur := s.revision.Load()
		if rv <= cur || s.revision.CompareAndSwap(cur, rv) {
			return
		}
	}
}

// run loads the first policy once the informers have synced, then
// rebuilds after every burst of changes.
func (s *policySync) run(ctx context.Context) {
	if !cache.WaitForCacheSync(ctx.Done(), s.synced...) {
		return
	}
	s.rebuild()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
		}
		if !s.settle(ctx) {
			return
		}
		s.rebuild()
	}
}

// settle waits out the debounce, so changes arriving right after the
// first one are taken into the same rebuild; false when ctx ended.
func (s *policySync) settle(ctx context.Context) bool {
	t := time.NewTimer(s.debounce)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	// The changes that came during the wait are in this rebuild.
	select {
	case <-s.changed:
	default:
	}
	return true
}

// rebuild loads the informers' current objects into the engine. The
// revision is read before listing: objects listed are at least that new,
// so the policy is never labelled newer than what it was built from.
func (s *policySync) rebuild() {
	revision := s.revision.Load()
	roles, err1 := s.roles.List(labels.Everything())
	clusterRoles, err2 := s.clusterRoles.List(labels.Everything())
	bindings, err3 := s.bindings.List(labels.Everything())
	clusterBindings, err4 := s.clusterBindings.List(labels.Everything())
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		s.log.Error("rbac: list objects", "err", err)
		return
	}
	cr, crb := withDefaults(values(clusterRoles), values(clusterBindings))
	if err := s.engine.Load(values(roles), cr, values(bindings), crb, revision); err != nil {
		s.log.Error("rbac: load policy", "revision", revision, "err", err)
		return
	}
	s.loaded.Store(true)
	if s.onLoad != nil {
		s.onLoad(revision)
	}
	s.log.Debug("rbac: policy loaded", "revision", revision)
}

// ready is the rbac-synced readiness check.
func (s *policySync) ready(context.Context) error {
	if !s.loaded.Load() {
		return ErrNotSynced
	}
	return nil
}

// values copies the objects a lister returns into a slice of values, as
// Load takes them. The objects are shared with the informer's cache, which
// Load only reads.
func values[T any](ptrs []*T) []T {
	out := make([]T, 0, len(ptrs))
	for _, p := range ptrs {
		out = append(out, *p)
	}
	return out
}

// withDefaults adds the objects of kube's bootstrap policy
// (rbacpolicy.Defaults) that the API does not hold, by name. kube-apiserver
// writes them on start-up; kubesplit's registry may not have, and a fresh
// stack must still give users kube's defaults (cluster-admin for
// system:masters, discovery for everyone, view/edit/admin to bind). An
// object of the same name in the API wins, so an administrator can change
// a default by writing it; deleting one brings the default back, as
// kube-apiserver's reconciliation would on its next start.
func withDefaults(clusterRoles []rbacv1.ClusterRole, clusterBindings []rbacv1.ClusterRoleBinding) ([]rbacv1.ClusterRole, []rbacv1.ClusterRoleBinding) {
	defRoles, defBindings := rbacpolicy.Defaults()
	return addMissing(clusterRoles, defRoles, func(r *rbacv1.ClusterRole) string { return r.Name }),
		addMissing(clusterBindings, defBindings, func(b *rbacv1.ClusterRoleBinding) string { return b.Name })
}

// addMissing appends the defaults whose name is not in have.
func addMissing[T any](have, defaults []T, name func(*T) string) []T {
	names := make(map[string]bool, len(have))
	for i := range have {
		names[name(&have[i])] = true
	}
	for i := range defaults {
		if !names[name(&defaults[i])] {
			have = append(have, defaults[i])
		}
	}
	return have
}
