package rbac

import (
	"fmt"

	"github.com/casbin/casbin/v2/model"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// grant is one binding subject's hold on a role.
type grant struct {
	// role is nil when the binding's roleRef does not resolve; missing
	// then says why, in kube's words.
	role    *role
	missing string
	// source describes the binding and subject for "allowed by" reasons.
	source string
	// order is the binding's position in Load's input, ClusterRoleBindings
	// first, so rule listings follow kube's order.
	order int
}

// scope indexes the grants of one scope (the cluster, or one namespace) by
// what they match a user on.
type scope struct {
	users  map[string][]grant
	groups map[string][]grant
}

func newScope() *scope {
	return &scope{users: map[string][]grant{}, groups: map[string][]grant{}}
}

// add indexes g under the subject, once per binding even when a binding
// names the same subject twice.
func (s *scope) add(kind subjectKind, name string, g grant) {
	index := s.users
	if kind == byGroup {
		index = s.groups
	}
	list := index[name]
	if n := len(list); n > 0 && list[n-1].order == g.order {
		return
	}
	index[name] = append(list, g)
}

// policy is one loaded revision of the RBAC objects. It is never modified
// after it is built: Load builds a new one and swaps it in whole.
type policy struct {
	revision int64
	// cluster holds the grants of ClusterRoleBindings: they apply in every
	// namespace, to cluster-scoped resources and to non-resource URLs.
	cluster *scope
	// namespaces holds the grants of RoleBindings, by the binding's
	// namespace: they apply only to resource requests in it.
	namespaces map[string]*scope
}

// builder turns RBAC objects into a policy.
type builder struct {
	model        model.Model
	clusterRules map[string][]rbacv1.PolicyRule
	roles        map[string]*rbacv1.Role
	compiled     map[string]*role
	order        int
}

// buildPolicy compiles the objects of one revision.
func buildPolicy(m model.Model, roles []rbacv1.Role, clusterRoles []rbacv1.ClusterRole,
	bindings []rbacv1.RoleBinding, clusterBindings []rbacv1.ClusterRoleBinding, revision int64) (*policy, error) {
	b := &builder{
		model:        m,
		clusterRules: rbacpolicy.Aggregate(clusterRoles),
		roles:        make(map[string]*rbacv1.Role, len(roles)),
		compiled:     map[string]*role{},
	}
	for i := range roles {
		b.roles[roles[i].Namespace+"/"+roles[i].Name] = &roles[i]
	}
	p := &policy{revision: revision, cluster: newScope(), namespaces: map[string]*scope{}}
	for i := range clusterBindings {
		cb := &clusterBindings[i]
		if err := b.bind(p.cluster, "ClusterRoleBinding", cb.Name, "", cb.RoleRef, cb.Subjects); err != nil {
			return nil, err
		}
	}
	for i := range bindings {
		rb := &bindings[i]
		if rb.Namespace == "" {
			continue // a RoleBinding outside any namespace can apply nowhere
		}
		s := p.namespaces[rb.Namespace]
		if s == nil {
			s = newScope()
			p.namespaces[rb.Namespace] = s
		}
		if err := b.bind(s, "RoleBinding", rb.Name, rb.Namespace, rb.RoleRef, rb.Subjects); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// bind indexes one binding's subjects in s.
func (b *builder) bind(s *scope, kind, name, namespace string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) error {
	r, missing, err := b.resolve(ref, namespace)
	if err != nil {
		return err
	}
	b.order++
	for _, subject := range subjects {
		matchKind, matchName, ok := subjectMatch(subject, namespace)
		if !ok {
			continue
		}
		s.add(matchKind, matchName, grant{
			role:    r,
			missing: missing,
			source:  describeBinding(kind, name, namespace, ref, subject),
			order:   b.order,
		})
	}
	return nil
}

// resolve compiles (once) the role a binding in namespace refers to. A
// reference that does not resolve is not an error of Load: as in kube the
// binding grants nothing and the reason of a refusal says why.
func (b *builder) resolve(ref rbacv1.RoleRef, namespace string) (*role, string, error) {
	var (
		key   string
		rules []rbacv1.PolicyRule
		found bool
	)
	switch ref.Kind {
	case "ClusterRole":
		key = "ClusterRole/" + ref.Name
		rules, found = b.clusterRules[ref.Name]
		if !found {
			return nil, fmt.Sprintf("clusterrole.rbac.authorization.k8s.io %q not found", ref.Name), nil
		}
	case "Role":
		// A ClusterRoleBinding (namespace "") cannot reference a Role.
		key = "Role/" + namespace + "/" + ref.Name
		r, ok := b.roles[namespace+"/"+ref.Name]
		if !ok || namespace == "" {
			return nil, fmt.Sprintf("role.rbac.authorization.k8s.io %q not found", ref.Name), nil
		}
		rules = r.Rules
	default:
		return nil, fmt.Sprintf("unsupported role reference kind: %q", ref.Kind), nil
	}
	if r, ok := b.compiled[key]; ok {
		return r, "", nil
	}
	r, err := compileRole(b.model, rules)
	if err != nil {
		return nil, "", err
	}
	b.compiled[key] = r
	return r, "", nil
}
