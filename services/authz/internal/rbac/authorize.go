package rbac

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// authorize evaluates a against the policy. The cluster's grants apply to
// every request; a namespace's grants only to resource requests in that
// namespace, which is what scopes a RoleBinding, even one that references a
// ClusterRole, and keeps nonResourceURLs working only through
// ClusterRoleBindings.
func (p *policy) authorize(a *authz.Attributes) (authz.Result, error) {
	ev := evaluation{attrs: a, checked: make([]*role, 0, 8)}
	if a.ResourceRequest {
		ev.combined = a.Resource
		if a.Subresource != "" {
			ev.combined = a.Resource + "/" + a.Subresource
		}
	}
	scopes := [2]*scope{p.cluster}
	if a.ResourceRequest && a.Namespace != "" {
		scopes[1] = p.namespaces[a.Namespace]
	}
	for _, s := range scopes {
		if s == nil {
			continue
		}
		if source, ok := ev.scope(s); ok {
			return authz.Result{Decision: authz.DecisionAllow, Reason: "RBAC: allowed by " + source, Revision: p.revision}, nil
		}
	}
	res := authz.Result{Decision: authz.DecisionNoOpinion, Reason: ev.reason(), Revision: p.revision}
	if len(ev.errs) > 0 {
		return res, fmt.Errorf("%w: %w", authz.ErrEvaluation, errors.Join(ev.errs...))
	}
	return res, nil
}

// evaluation is one request's walk over the grants that apply to it.
type evaluation struct {
	attrs    *authz.Attributes
	combined string
	// checked are the roles already asked: a role bound several times (to
	// the user and to a group) is evaluated once.
	checked []*role
	missing []string
	errs    []error
}

// scope walks the grants s holds for the user's name, then for each of its
// groups, until one allows.
func (ev *evaluation) scope(s *scope) (string, bool) {
	if source, ok := ev.grants(s.users[ev.attrs.User.Username]); ok {
		return source, true
	}
	for _, group := range ev.attrs.User.Groups {
		if source, ok := ev.grants(s.groups[group]); ok {
			return source, true
		}
	}
	return "", false
}

// grants asks the role of each grant until one allows, and returns the
// allowing grant's source.
func (ev *evaluation) grants(list []grant) (string, bool) {
	for i := range list {
		g := &list[i]
		if g.role == nil {
			if !slices.Contains(ev.missing, g.missing) {
				ev.missing = append(ev.missing, g.missing)
			}
			continue
		}
		if slices.Contains(ev.checked, g.role) {
			continue
		}
		ev.checked = append(ev.checked, g.role)
		ok, err := ev.allows(g.role)
		if err != nil {
			ev.errs = append(ev.errs, err)
			continue
		}
		if ok {
			return g.source, true
		}
	}
	return "", false
}

// allows asks one role's enforcer about the request.
func (ev *evaluation) allows(r *role) (bool, error) {
	a := ev.attrs
	if a.ResourceRequest {
		return r.allowsResource(a.Verb, a.APIGroup, ev.combined, a.Subresource, a.Name)
	}
	return r.allowsNonResource(a.Verb, a.Path)
}

// reason explains a NoOpinion as kube does: empty, unless bindings that
// applied referenced roles that do not exist.
func (ev *evaluation) reason() string {
	switch len(ev.missing) {
	case 0:
		return ""
	case 1:
		return "RBAC: " + ev.missing[0]
	}
	return "RBAC: [" + strings.Join(ev.missing, ", ") + "]"
}
