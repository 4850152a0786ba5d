package apidiscovery

import (
	"cmp"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// PriorityFunc gives a group version's priority in a merged document.
type PriorityFunc func(schema.GroupVersion) Priority

// Merge is one document from several, as kube's aggregator merges its
// sources (k8s.io/apiserver aggregated.resourceDiscoveryManager): a group
// version listed by several documents is taken from the first; each
// group's versions are ordered by version priority, then newest first in
// kube's version order (v2 > v1 > v1beta2 > v1alpha1); groups by the
// highest group priority of their versions, then by name. The first
// version of a group is its preferred one.
func Merge(priority PriorityFunc, docs ...[]apidiscoveryv2.APIGroupDiscovery) []apidiscoveryv2.APIGroupDiscovery {
	byName := map[string]*apidiscoveryv2.APIGroupDiscovery{}
	seen := map[schema.GroupVersion]bool{}
	for _, doc := range docs {
		for _, g := range doc {
			merged := byName[g.Name]
			if merged == nil {
				merged = &apidiscoveryv2.APIGroupDiscovery{ObjectMeta: g.ObjectMeta}
				byName[g.Name] = merged
			}
			for _, v := range g.Versions {
				gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
				if seen[gv] {
					continue
				}
				seen[gv] = true
				merged.Versions = append(merged.Versions, v)
			}
		}
	}
	groupPriority := map[string]int32{}
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(byName))
	for name, g := range byName {
		slices.SortStableFunc(g.Versions, func(a, b apidiscoveryv2.APIVersionDiscovery) int {
			pa := priority(schema.GroupVersion{Group: name, Version: a.Version}).Version
			pb := priority(schema.GroupVersion{Group: name, Version: b.Version}).Version
			return cmp.Or(cmp.Compare(pb, pa), -version.CompareKubeAwareVersionStrings(a.Version, b.Version))
		})
		for i, v := range g.Versions {
			p := priority(schema.GroupVersion{Group: name, Version: v.Version}).Group
			if i == 0 || p > groupPriority[name] {
				groupPriority[name] = p
			}
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b apidiscoveryv2.APIGroupDiscovery) int {
		return cmp.Or(cmp.Compare(groupPriority[b.Name], groupPriority[a.Name]), strings.Compare(a.Name, b.Name))
	})
	return out
}
