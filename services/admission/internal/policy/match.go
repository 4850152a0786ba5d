package policy

import (
	"context"
	"fmt"
	"slices"

	admv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/selector"
)

// matcher decides whether match criteria (a policy's matchConstraints, a
// binding's matchResources) select a request, as kube's policy matcher
// does.
type matcher struct {
	namespaces selector.Namespaces
}

// request is one admission request with what matching reads of it.
type request struct {
	*admission.Attributes
	object, oldObject map[string]any
}

// matches reports whether mr selects r: namespace and object selectors,
// not excluded, and one of the resource rules (none means any, which only
// a binding may say). Selector errors count only for a request the rules
// select, as in kube.
func (m *matcher) matches(ctx context.Context, mr *admv1.MatchResources, r *request) (bool, error) {
	if mr == nil {
		return true, nil
	}
	nsOK, nsErr := m.namespaceMatches(ctx, mr.NamespaceSelector, r)
	if !nsOK && nsErr == nil {
		return false, nil
	}
	objOK, objErr := objectMatches(mr.ObjectSelector, r)
	if !objOK && objErr == nil {
		return false, nil
	}
	exact := mr.MatchPolicy != nil && *mr.MatchPolicy == admv1.Exact
	if rulesMatch(mr.ExcludeResourceRules, r, exact) {
		return false, nil
	}
	if len(mr.ResourceRules) > 0 && !rulesMatch(mr.ResourceRules, r, exact) {
		return false, nil
	}
	if nsErr != nil {
		return false, nsErr
	}
	return true, objErr
}

// rulesMatch reports whether one of rules selects r by operation, group,
// version, resource, scope and name. With Exact, only the resource the
// client asked for counts; else also the one the object is admitted as
// (kube's Equivalent).
func rulesMatch(rules []admv1.NamedRuleWithOperations, r *request, exact bool) bool {
	a := r.Attributes
	if exact && a.RequestResource.Resource != "" {
		copied := *a
		copied.Resource, copied.Kind, copied.SubResource = a.RequestResource, a.RequestKind, a.RequestSubResource
		a = &copied
	}
	return slices.ContainsFunc(rules, func(rule admv1.NamedRuleWithOperations) bool {
		if !admission.Matches([]admission.Rule{{RuleWithOperations: rule.RuleWithOperations}}, a) {
			return false
		}
		return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name)
	})
}

// namespaceMatches applies a namespace selector (nil selects everything),
// as webhooks do.
func (m *matcher) namespaceMatches(ctx context.Context, sel *metav1.LabelSelector, r *request) (bool, error) {
	if sel == nil {
		return true, nil
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return m.namespaces.Match(ctx, parsed, r.Attributes)
}

// objectMatches applies an object selector (nil selects everything) to
// the new object or the old one, as webhooks do.
func objectMatches(sel *metav1.LabelSelector, r *request) (bool, error) {
	if sel == nil {
		return true, nil
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return selector.Object(parsed, r.Attributes), nil
}

// isNamespace reports whether a is about a Namespace itself (whose request
// namespace is its own name).
func isNamespace(a *admission.Attributes) bool {
	return a.Resource.Group == "" && a.Resource.Resource == "namespaces" && a.SubResource == ""
}

// namespace is the named namespace from the informer, or read live when
// the informer has not seen it yet (it was just created).
func (m *matcher) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := m.namespaces.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("looking up namespace %q: %w", name, err)
	}
	return ns, nil
}
