package apidiscovery

import (
	"fmt"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FromLegacy converts a group version's legacy resource list into the
// resources of its aggregated entry, as kube's installer and aggregator
// do (k8s.io/apiserver endpoints.ConvertGroupVersionIntoToDiscovery):
// resources in the list's order, each subresource ("pods/status") under
// its resource with its kind and verbs, a responseKind naming the group
// and version only where the legacy entry does, and a resource made up
// for a subresource listed without one.
func FromLegacy(list []metav1.APIResource) ([]apidiscoveryv2.APIResourceDiscovery, error) {
	var out []apidiscoveryv2.APIResourceDiscovery
	index := map[string]int{}
	for _, r := range list {
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource: r.Name, Scope: scopeOf(r),
			ResponseKind: &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Verbs:        r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories, SingularResource: r.SingularName,
		})
		index[r.Name] = len(out) - 1
	}
	for _, r := range list {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, exists := index[parent]
		if !exists {
			// Old client-go panics on a nil responseKind: kube sends an
			// empty one.
			out = append(out, apidiscoveryv2.APIResourceDiscovery{
				Resource: parent, Scope: scopeOf(r), ResponseKind: &metav1.GroupVersionKind{},
			})
			i = len(out) - 1
			index[parent] = i
		}
		if out[i].Scope != scopeOf(r) {
			return nil, fmt.Errorf("resource %s (scope %s) and its subresource %s (scope %s) differ in scope",
				parent, out[i].Scope, sub, scopeOf(r))
		}
		d := apidiscoveryv2.APISubresourceDiscovery{Subresource: sub, Verbs: r.Verbs, ResponseKind: &metav1.GroupVersionKind{}}
		if r.Kind != "" {
			d.ResponseKind = &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		out[i].Subresources = append(out[i].Subresources, d)
	}
	return out, nil
}

func scopeOf(r metav1.APIResource) apidiscoveryv2.ResourceScope {
	if r.Namespaced {
		return apidiscoveryv2.ScopeNamespace
	}
	return apidiscoveryv2.ScopeCluster
}

// Version is a group version's aggregated entry made from its legacy
// resource list, Current as a server's own versions are.
func Version(version string, list []metav1.APIResource) (apidiscoveryv2.APIVersionDiscovery, error) {
	resources, err := FromLegacy(list)
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	return apidiscoveryv2.APIVersionDiscovery{Version: version, Resources: resources,
		Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}, nil
}
