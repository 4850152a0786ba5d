// Package discovery serves the API discovery documents (/api, /api/v1,
// /apis, /apis/<group>, /apis/<group>/<version>) from the registry's
// resource table, so kubectl can map kinds and short names to URLs, and
// the aggregated documents (apidiscovery.k8s.io/v2) of /api and /apis
// that client-go and kubectl ask for first. Every stored resource lists
// kube's storageVersionHash.
package discovery

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Handler serves discovery for whatever resources its source returns now
// (custom resources come and go).
type Handler struct {
	resources func() []*resource.Info
}

// New returns a discovery handler.
func New(resources func() []*resource.Info) *Handler { return &Handler{resources: resources} }

// ServeHTTP answers the discovery paths; anything else is 404. /api and
// /apis answer the aggregated document to a client that asks for it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch strings.Trim(r.URL.Path, "/") {
	case "api":
		apidiscovery.Serve(http.HandlerFunc(h.serveLegacy), h.aggregatedCore).ServeHTTP(w, r)
	case "apis":
		apidiscovery.Serve(http.HandlerFunc(h.serveLegacy), h.aggregatedGroups).ServeHTTP(w, r)
	default:
		h.serveLegacy(w, r)
	}
}

// serveLegacy answers the legacy documents.
func (h *Handler) serveLegacy(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var body any
	var ok bool
	switch {
	case len(parts) == 1 && parts[0] == "api":
		body, ok = &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}}, true
	case len(parts) == 2 && parts[0] == "api":
		body, ok = h.resourceList("", parts[1])
	case len(parts) == 1 && parts[0] == "apis":
		body, ok = h.groupList(), true
	case len(parts) == 2 && parts[0] == "apis":
		body, ok = h.group(parts[1])
	case len(parts) == 3 && parts[0] == "apis":
		body, ok = h.resourceList(parts[1], parts[2])
	}
	if !ok {
		apierror.Write(w, apierrors.NewNotFound(schema.GroupResource{}, r.URL.Path))
		return
	}
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// Groups lists the API groups other than core, with their versions, in a
// stable order.
func (h *Handler) groups() []metav1.APIGroup {
	byName := map[string]*metav1.APIGroup{}
	var names []string
	for _, info := range h.resources() {
		if info.Group == "" {
			continue
		}
		g, ok := byName[info.Group]
		if !ok {
			g = &metav1.APIGroup{Name: info.Group}
			byName[info.Group] = g
			names = append(names, info.Group)
		}
		gv := metav1.GroupVersionForDiscovery{GroupVersion: info.APIVersion(), Version: info.Version}
		if !hasVersion(g.Versions, gv) {
			g.Versions = append(g.Versions, gv)
		}
	}
	sort.Strings(names)
	out := make([]metav1.APIGroup, 0, len(names))
	for _, n := range names {
		g := byName[n]
		g.PreferredVersion = g.Versions[0]
		out = append(out, *g)
	}
	return out
}

func hasVersion(list []metav1.GroupVersionForDiscovery, gv metav1.GroupVersionForDiscovery) bool {
	for _, v := range list {
		if v == gv {
			return true
		}
	}
	return false
}

func (h *Handler) groupList() *metav1.APIGroupList {
	return &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: h.groups()}
}

func (h *Handler) group(name string) (*metav1.APIGroup, bool) {
	for _, g := range h.groups() {
		if g.Name == name {
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			return &g, true
		}
	}
	return nil, false
}

// resourceList describes the resources of one group version, with their
// subresources as "<resource>/<subresource>" entries as kube lists them.
func (h *Handler) resourceList(group, version string) (*metav1.APIResourceList, bool) {
	list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: schema.GroupVersion{Group: group, Version: version}.String()}
	infos := h.versionResources(group, version)
	for _, info := range infos {
		list.APIResources = append(list.APIResources, apiResources(info)...)
	}
	// Sorted by name, subresources after their resource, as kube's
	// installer registers its storage paths.
	sort.SliceStable(list.APIResources, func(i, j int) bool { return list.APIResources[i].Name < list.APIResources[j].Name })
	return list, len(infos) > 0
}

// versionResources are the resources of one group version.
func (h *Handler) versionResources(group, version string) []*resource.Info {
	var out []*resource.Info
	for _, info := range h.resources() {
		if info.Group == group && info.Version == version {
			out = append(out, info)
		}
	}
	return out
}

// apiResources are a resource's legacy discovery entries: itself, with
// its storageVersionHash, and its subresources as "<resource>/<sub>".
func apiResources(info *resource.Info) []metav1.APIResource {
	list := []metav1.APIResource{{
		Name: info.Resource, SingularName: info.Singular, Namespaced: info.Namespaced, Kind: info.Kind,
		Verbs: info.Verbs(), ShortNames: info.ShortNames, Categories: info.Categories,
	}}
	if stored(info) {
		list[0].StorageVersionHash = storageVersionHash(info)
	}
	subs := info.Subresources
	if info.StatusSubresource {
		subs = append([]string{"status"}, subs...)
	}
	for _, sub := range subs {
		verbs := metav1.Verbs{"get", "patch", "update"}
		if sub == "finalize" {
			verbs = metav1.Verbs{"update"}
		}
		list = append(list, metav1.APIResource{
			Name: info.Resource + "/" + sub, Namespaced: info.Namespaced, Kind: info.Kind, Verbs: verbs,
		})
	}
	for _, a := range info.Actions {
		list = append(list, metav1.APIResource{
			Name: info.Resource + "/" + a.Name, Namespaced: info.Namespaced, Group: a.Group, Version: a.Version,
			Kind: a.Kind, Verbs: a.Verbs,
		})
	}
	if info.Scale != nil {
		list = append(list, metav1.APIResource{
			Name: info.Resource + "/scale", Namespaced: info.Namespaced, Group: "autoscaling", Version: "v1",
			Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"},
		})
	}
	return list
}
