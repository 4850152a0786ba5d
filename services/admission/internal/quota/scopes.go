package quota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubequota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/utils/clock"
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

// scoped are kube's quota evaluators of the kinds a quota's scopes take
// in (pods; PVCs by VolumeAttributesClass). Only their scope matching is
// used, which lists nothing.
var scoped = struct{ pods, pvcs kubequota.Evaluator }{
	pods: core.NewPodEvaluator(nil, clock.RealClock{}),
	pvcs: core.NewPersistentVolumeClaimEvaluator(nil),
}

// inScope says whether the quota's scopes take in obj, as kube's
// evaluators decide: a scoped quota takes in no object of a kind without
// scopes.
func inScope(q *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	reqs := scopeSelectors(q)
	if len(reqs) == 0 {
		return true, nil
	}
	ev := scopeEvaluator(obj)
	if ev == nil {
		return false, nil
	}
	matched, err := ev.MatchingScopes(obj, reqs)
	return err == nil && len(matched) == len(reqs), err
}

// hasScopes says whether objects of obj's kind can move in or out of a
// quota's scope.
func hasScopes(obj runtime.Object) bool { return scopeEvaluator(obj) != nil }

// scopeEvaluator is kube's evaluator of obj's kind when that kind has
// scopes, else nil.
func scopeEvaluator(obj runtime.Object) kubequota.Evaluator {
	switch obj.(type) {
	case *corev1.Pod:
		return scoped.pods
	case *corev1.PersistentVolumeClaim:
		return scoped.pvcs
	}
	return nil
}
