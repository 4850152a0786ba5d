package discovery

import (
	"net/http"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// aggregatedCore is /api's aggregated document: the core group's one
// version.
func (h *Handler) aggregatedCore(*http.Request) (*apidiscovery.Document, error) {
	return h.aggregated(func(group string) bool { return group == "" })
}

// aggregatedGroups is /apis's aggregated document: every other group the
// registry serves, in kube's order (built-in groups by kube's priorities,
// then custom resource groups by name; each group's versions by priority,
// then newest first).
func (h *Handler) aggregatedGroups(*http.Request) (*apidiscovery.Document, error) {
	return h.aggregated(func(group string) bool { return group != "" })
}

func (h *Handler) aggregated(include func(group string) bool) (*apidiscovery.Document, error) {
	byGV := map[schema.GroupVersion][]*resource.Info{}
	var gvs []schema.GroupVersion
	for _, info := range h.resources() {
		gv := schema.GroupVersion{Group: info.Group, Version: info.Version}
		if !include(gv.Group) {
			continue
		}
		if byGV[gv] == nil {
			gvs = append(gvs, gv)
		}
		byGV[gv] = append(byGV[gv], info)
	}
	var groups []apidiscoveryv2.APIGroupDiscovery
	for _, gv := range gvs {
		v, err := versionDiscovery(gv, byGV[gv])
		if err != nil {
			return nil, err
		}
		groups = append(groups, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group},
			Versions: []apidiscoveryv2.APIVersionDiscovery{v}})
	}
	return apidiscovery.NewDocument(apidiscovery.Merge(Priority, groups)), nil
}

// versionDiscovery is one group version's aggregated entry, converted
// from its legacy list as kube's installer converts it, resources and
// subresources sorted by name. A custom resource's responseKind, and its
// status subresource's, name its group and version, as kube's CRD
// handler writes them.
func versionDiscovery(gv schema.GroupVersion, infos []*resource.Info) (apidiscoveryv2.APIVersionDiscovery, error) {
	var list []metav1.APIResource
	custom := map[string]bool{}
	for _, info := range infos {
		list = append(list, apiResources(info)...)
		custom[info.Resource] = info.Custom
	}
	slices.SortStableFunc(list, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	v, err := apidiscovery.Version(gv.Version, list)
	if err != nil {
		return v, err
	}
	for i := range v.Resources {
		r := &v.Resources[i]
		if !custom[r.Resource] {
			continue
		}
		setGroupVersion(r.ResponseKind, gv)
		for j := range r.Subresources {
			setGroupVersion(r.Subresources[j].ResponseKind, gv)
		}
		kubeCustomResourceOrder(r)
	}
	return v, nil
}

// customResourceVerbs are a custom resource's verbs in the order kube's
// CRD discovery controller lists them.
var customResourceVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// kubeCustomResourceOrder puts a custom resource's verbs and subresources
// in kube's order: its verbs as the CRD discovery controller lists them,
// status before scale.
func kubeCustomResourceOrder(r *apidiscoveryv2.APIResourceDiscovery) {
	if slices.Equal(slices.Sorted(slices.Values(r.Verbs)), slices.Sorted(slices.Values(customResourceVerbs))) {
		r.Verbs = slices.Clone(customResourceVerbs)
	}
	rank := map[string]int{"status": 0, "scale": 1}
	slices.SortStableFunc(r.Subresources, func(a, b apidiscoveryv2.APISubresourceDiscovery) int {
		return rank[a.Subresource] - rank[b.Subresource]
	})
}

// setGroupVersion names gv in a responseKind that names none.
func setGroupVersion(k *metav1.GroupVersionKind, gv schema.GroupVersion) {
	if k != nil && k.Group == "" && k.Version == "" {
		k.Group, k.Version = gv.Group, gv.Version
	}
}

// Priority is a group version's place in discovery: kube's built-in
// priorities, and kube's for every custom resource group version.
func Priority(gv schema.GroupVersion) apidiscovery.Priority {
	if p, ok := apidiscovery.BuiltinPriority(gv); ok {
		return p
	}
	return apidiscovery.CustomResourcePriority
}
