package resource

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
)

// autoscaling is autoscaling: HorizontalPodAutoscalers, served in v2
// (preferred) and v1 over one storage, kept as v2 and converted by kube's
// code for v1 clients.
func autoscaling() []*Info {
	hpa := func(version string) *Info {
		info := &Info{Group: "autoscaling", Version: version, Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler",
			Singular: "horizontalpodautoscaler", Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"},
			StatusSubresource: true}
		if version != "v2" {
			info.StoredAs = &schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
		}
		return kube(info, horizontalpodautoscaler.Strategy, status(horizontalpodautoscaler.StatusStrategy))
	}
	return []*Info{hpa("v2"), hpa("v1")}
}
