package quota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// scopeSelectors are a quota's scopes and scope selector as one list of
// requirements, all of which must hold.
func scopeSelectors(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// inScope says whether the quota's scopes take in obj. Only pods have
// scopes: a scoped quota takes in no other object, as in kube.
func inScope(q *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	reqs := scopeSelectors(q)
	if len(reqs) == 0 {
		return true, nil
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return false, nil
	}
	for _, r := range reqs {
		in, err := podInScope(p, r)
		if err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

// podInScope evaluates one scope requirement on a pod.
func podInScope(p *corev1.Pod, r corev1.ScopedResourceSelectorRequirement) (bool, error) {
	switch r.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return p.Spec.ActiveDeadlineSeconds != nil, nil
	case corev1.ResourceQuotaScopeNotTerminating:
		return p.Spec.ActiveDeadlineSeconds == nil, nil
	case corev1.ResourceQuotaScopeBestEffort:
		return bestEffort(p), nil
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !bestEffort(p), nil
	case corev1.ResourceQuotaScopePriorityClass:
		return matchValue(r, p.Spec.PriorityClassName)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(p), nil
	}
	return false, fmt.Errorf("unsupported quota scope %q", r.ScopeName)
}

// bestEffort pods state no requests or limits at all.
func bestEffort(p *corev1.Pod) bool {
	if p.Spec.Resources != nil && (len(p.Spec.Resources.Requests) > 0 || len(p.Spec.Resources.Limits) > 0) {
		return false
	}
	all := append(append([]corev1.Container{}, p.Spec.Containers...), p.Spec.InitContainers...)
	for _, c := range all {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			return false
		}
	}
	return true
}

// matchValue applies a PriorityClass requirement's operator to the pod's
// priority class name.
func matchValue(r corev1.ScopedResourceSelectorRequirement, v string) (bool, error) {
	in := false
	for _, want := range r.Values {
		in = in || want == v
	}
	switch r.Operator {
	case corev1.ScopeSelectorOpIn:
		return in, nil
	case corev1.ScopeSelectorOpNotIn:
		return !in, nil
	case corev1.ScopeSelectorOpExists:
		return v != "", nil
	case corev1.ScopeSelectorOpDoesNotExist:
		return v == "", nil
	}
	return false, fmt.Errorf("unsupported scope selector operator %q", r.Operator)
}

// crossNamespaceAffinity says whether a pod's (anti-)affinity terms reach
// into other namespaces, by namespace list or selector.
func crossNamespaceAffinity(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}
