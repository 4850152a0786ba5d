package discovery

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// apiServicePrefix keeps the upstream names of APIServices apart from the
// configured ones ("registry", "authn", …).
const apiServicePrefix = "apiservice:"

// APIService is a group version served by a backend of its own, as an
// APIService object with a service registers it.
type APIService struct {
	// Name is the APIService's name (<version>.<group>).
	Name string
	// Group and Version are what it serves: /apis/<Group>/<Version>/….
	Group, Version string
	// GroupPriorityMinimum and VersionPriority order discovery as kube's
	// aggregator does: groups by the highest minimum, versions by
	// priority, then by kube's version order.
	GroupPriorityMinimum, VersionPriority int32
	// Backend serves its requests. Required.
	Backend Backend
}

// aggregated is what SetAPIServices installed, replaced as a whole.
type aggregated struct {
	backends map[string]Backend  // by upstream name
	groups   []metav1.APIGroup   // discovery of the APIServices alone, in kube's order
	byGroup  map[string]struct{} // the groups some APIService serves
	svcs     []APIService        // as SetAPIServices received them
}

// SetAPIServices replaces the group versions served by backends of their
// own: requests under /apis/<group>/<version> go to their backend, and
// /apis and /apis/<group> list them with what the upstreams serve.
func (h *Handler) SetAPIServices(svcs []APIService) error {
	agg := &aggregated{backends: map[string]Backend{}, byGroup: map[string]struct{}{}, svcs: slices.Clone(svcs)}
	rules := make([]Rule, 0, len(svcs))
	for _, s := range svcs {
		if s.Group == "" || s.Version == "" || s.Backend == nil {
			return fmt.Errorf("%w: APIService %q needs a group, a version and a backend", ErrInvalidRule, s.Name)
		}
		name := apiServicePrefix + s.Name
		agg.backends[name] = s.Backend
		agg.byGroup[s.Group] = struct{}{}
		rules = append(rules, Rule{Group: s.Group, Version: s.Version, Upstream: name})
	}
	agg.groups = discoveryOrder(svcs)
	// The backends first, so that no rule ever names a missing one.
	old := h.aggregated.Swap(agg)
	if err := h.table.SetDynamic(rules); err != nil {
		h.aggregated.Store(old)
		return err
	}
	h.forgetGroups()
	return nil
}

// forgetGroups drops the cached /apis, so the next request sees a group
// an APIService (a CRD's local one included) just brought. A refresh
// under way finishes first, since it may predate the change.
func (h *Handler) forgetGroups() {
	h.cache.mu.Lock()
	h.cache.at = time.Time{}
	h.cache.mu.Unlock()
	h.aggCache.mu.Lock()
	h.aggCache.at = time.Time{}
	h.aggCache.mu.Unlock()
}

// discoveryOrder lists svcs as kube's aggregator does: groups by their
// highest GroupPriorityMinimum (then by name), each group's versions by
// VersionPriority, then newest first in kube's version order.
func discoveryOrder(svcs []APIService) []metav1.APIGroup {
	svcs = slices.Clone(svcs)
	slices.SortStableFunc(svcs, func(a, b APIService) int {
		return cmp.Or(cmp.Compare(b.GroupPriorityMinimum, a.GroupPriorityMinimum), strings.Compare(a.Name, b.Name))
	})
	var groups []metav1.APIGroup
	byGroup := map[string][]APIService{}
	for _, s := range svcs {
		if byGroup[s.Group] == nil {
			groups = append(groups, metav1.APIGroup{Name: s.Group})
		}
		byGroup[s.Group] = append(byGroup[s.Group], s)
	}
	for i := range groups {
		versions := byGroup[groups[i].Name]
		slices.SortStableFunc(versions, func(a, b APIService) int {
			return cmp.Or(cmp.Compare(b.VersionPriority, a.VersionPriority),
				-version.CompareKubeAwareVersionStrings(a.Version, b.Version))
		})
		for _, s := range versions {
			groups[i].Versions = append(groups[i].Versions,
				metav1.GroupVersionForDiscovery{GroupVersion: s.Group + "/" + s.Version, Version: s.Version})
		}
		groups[i].PreferredVersion = groups[i].Versions[0]
	}
	return groups
}

// withAggregated adds the APIServices' groups to the upstreams' merged
// list: versions of a group an upstream serves too go after its own,
// other groups after every upstream's. local is not modified.
func withAggregated(local []metav1.APIGroup, agg *aggregated) []metav1.APIGroup {
	if agg == nil || len(agg.groups) == 0 {
		return local
	}
	out := slices.Clone(local)
	for _, g := range agg.groups {
		i := slices.IndexFunc(out, func(l metav1.APIGroup) bool { return l.Name == g.Name })
		if i < 0 {
			out = append(out, g)
			continue
		}
		merged := out[i]
		merged.Versions = append(slices.Clone(merged.Versions), g.Versions...)
		out[i] = merged
	}
	return out
}

// aggregatedGroup tells whether path is /apis/<group> for a group some
// APIService serves, which the aggregator answers itself, since its
// versions may live on several backends.
func (h *Handler) aggregatedGroup(path string) (string, bool) {
	agg := h.aggregated.Load()
	rest, ok := strings.CutPrefix(strings.TrimSuffix(path, "/"), "/apis/")
	if !ok || agg == nil || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	_, ok = agg.byGroup[rest]
	return rest, ok
}

// serveGroup answers /apis/<group> from the merged discovery.
func (h *Handler) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, r.Method))
		return
	}
	local, _ := h.groupList(r.Context())
	groups := withAggregated(local, h.aggregated.Load())
	i := slices.IndexFunc(groups, func(g metav1.APIGroup) bool { return g.Name == name })
	if i < 0 { // removed since aggregatedGroup looked
		apierror.Write(w, notFound())
		return
	}
	g := groups[i]
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	body, _ := json.Marshal(g)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// backend returns the backend serving upstream name: an APIService's or a
// configured one.
func (h *Handler) backend(name string) Backend {
	if agg := h.aggregated.Load(); agg != nil {
		if b := agg.backends[name]; b != nil {
			return b
		}
	}
	return h.backends[name]
}
