package resource

import (
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
)

// autoscaling is autoscaling: HorizontalPodAutoscalers. kube serves them in
// autoscaling/v2 (preferred) and autoscaling/v1 over one storage; only v2
// is served here until the registry can serve one stored kind in two
// versions.
func autoscaling() []*Info {
	return []*Info{
		kube(&Info{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler",
			Singular: "horizontalpodautoscaler", Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"},
			StatusSubresource: true},
			horizontalpodautoscaler.Strategy, status(horizontalpodautoscaler.StatusStrategy)),
	}
}
