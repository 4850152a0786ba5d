package quota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubequota "k8s.io/apiserver/pkg/quota/v1"
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

// scoped are the resources whose objects a quota's scopes can take in
// (pods; PVCs by VolumeAttributesClass), so that an update may move one
// into a quota's scope.
var scoped = []schema.GroupResource{podsResource, pvcsResource}

// inScope says whether the quota's scopes take in obj, as ev, kube's
// evaluator of its kind, decides: a scoped quota takes in no object of a
// kind without scopes.
func inScope(q *corev1.ResourceQuota, ev kubequota.Evaluator, obj runtime.Object) (bool, error) {
	reqs := scopeSelectors(q)
	if len(reqs) == 0 {
		return true, nil
	}
	matched, err := ev.MatchingScopes(obj, reqs)
	return err == nil && len(matched) == len(reqs), err
}
