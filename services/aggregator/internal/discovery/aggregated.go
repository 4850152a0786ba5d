package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
)

// aggregatedCache holds the merged aggregated /apis as groupCache holds
// the legacy one: kubectl's discovery costs each upstream one fetch per
// CacheFor, and clients revalidate with the ETag.
type aggregatedCache struct {
	mu  sync.Mutex // held during a refresh, so that concurrent requests share it
	at  time.Time
	doc *apidiscovery.Document
	// complete means every upstream answered and no APIService is
	// Stale; an incomplete merge is kept a fifth as long, so that a
	// backend that starts answering shows soon.
	complete bool
}

// aggregatedDocument is the merged aggregated /apis: every configured
// upstream's own aggregated document, keeping of each group version what
// the table routes to it, and every APIService's group version from its
// backend (converted from its legacy discovery when it serves no
// aggregated one, and Stale with what it last listed when it does not
// answer),
// in kube's order: APIServices by their priorities, built-in groups by
// kube's, custom resource groups after them.
func (h *Handler) aggregatedDocument(r *http.Request) (*apidiscovery.Document, error) {
	c := &h.aggCache
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := h.cacheFor
	if !c.complete {
		keep /= 5
	}
	if c.doc != nil && h.now().Sub(c.at) < keep {
		return c.doc, nil
	}
	doc, answers, stale := h.mergeAggregated(r.Context())
	if answers == 0 {
		return nil, apierror.Unavailable("no API service answered discovery", h.retryAfter)
	}
	c.doc, c.complete, c.at = doc, answers == len(h.backends) && !stale, h.now()
	return doc, nil
}

// mergeAggregated fetches and merges the documents, and says how many
// configured upstreams answered and whether some APIService is Stale. It runs without the request's
// cancellation, since its result serves other requests too.
func (h *Handler) mergeAggregated(ctx context.Context) (*apidiscovery.Document, int, bool) {
	ctx = h.fetchContext(context.WithoutCancel(ctx))
	ctx, cancel := context.WithTimeout(ctx, h.fetchTimeout)
	defer cancel()
	ctx = proxy.WithAccept(ctx, apidiscovery.AcceptAggregated)
	agg := h.aggregated.Load()

	var mu sync.Mutex
	var wg sync.WaitGroup
	upstreams := map[string][]apidiscoveryv2.APIGroupDiscovery{}
	for name, b := range h.backends {
		wg.Go(func() {
			groups, err := fetchAggregated(ctx, b)
			if err != nil {
				h.log.Warn("upstream left out of aggregated /apis", "upstream", name, "err", err)
				return
			}
			mu.Lock()
			upstreams[name] = h.routedTo(name, groups)
			mu.Unlock()
		})
	}
	var services []apidiscoveryv2.APIGroupDiscovery
	if agg != nil {
		services = make([]apidiscoveryv2.APIGroupDiscovery, len(agg.svcs))
		for i, s := range agg.svcs {
			wg.Go(func() { services[i] = h.apiServiceVersion(ctx, s) })
		}
		defer h.lastServed.keep(agg.svcs)
	}
	wg.Wait()

	stale := slices.ContainsFunc(services, func(g apidiscoveryv2.APIGroupDiscovery) bool {
		return g.Versions[0].Freshness == apidiscoveryv2.DiscoveryFreshnessStale
	})
	docs := [][]apidiscoveryv2.APIGroupDiscovery{services}
	for _, name := range slices.Sorted(maps.Keys(upstreams)) {
		docs = append(docs, upstreams[name])
	}
	return apidiscovery.NewDocument(apidiscovery.Merge(h.priority(agg), docs...)), len(upstreams), stale
}

// routedTo keeps of an upstream's groups the versions the table routes to
// it, so that a group version two services both claim is listed once.
func (h *Handler) routedTo(upstream string, groups []apidiscoveryv2.APIGroupDiscovery) []apidiscoveryv2.APIGroupDiscovery {
	var out []apidiscoveryv2.APIGroupDiscovery
	for _, g := range groups {
		kept := g
		kept.Versions = nil
		for _, v := range g.Versions {
			path := "/apis/" + g.Name + "/" + v.Version
			if g.Name == "" {
				path = "/api/" + v.Version
			}
			if name, _ := h.table.Route(path); name == upstream {
				kept.Versions = append(kept.Versions, v)
			}
		}
		if len(kept.Versions) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// apiServiceVersion is an APIService's group version as its backend
// describes it, as kube's aggregator fetches it: from the backend's
// aggregated /apis, else from its legacy /apis/<group>/<version>; Stale,
// with the resources it last listed, when neither answers.
func (h *Handler) apiServiceVersion(ctx context.Context, s APIService) apidiscoveryv2.APIGroupDiscovery {
	g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: s.Group}}
	v, err := fetchVersion(ctx, s.Backend, schema.GroupVersion{Group: s.Group, Version: s.Version})
	if err != nil {
		h.log.Warn("APIService discovery is stale", "apiservice", s.Name, "err", err)
		v = h.lastServed.stale(s)
	} else {
		h.lastServed.remember(s, v)
	}
	g.Versions = []apidiscoveryv2.APIVersionDiscovery{v}
	return g
}

// priority orders the merged document: an APIService's group version by
// its own priorities, a built-in one by kube's, any other (a custom
// resource's) by kube's CRD priorities.
func (h *Handler) priority(agg *aggregated) apidiscovery.PriorityFunc {
	own := map[schema.GroupVersion]apidiscovery.Priority{}
	if agg != nil {
		for _, s := range agg.svcs {
			own[schema.GroupVersion{Group: s.Group, Version: s.Version}] = apidiscovery.Priority{
				Group: s.GroupPriorityMinimum, Version: s.VersionPriority}
		}
	}
	return func(gv schema.GroupVersion) apidiscovery.Priority {
		if p, ok := own[gv]; ok {
			return p
		}
		if p, ok := apidiscovery.BuiltinPriority(gv); ok {
			return p
		}
		return apidiscovery.CustomResourcePriority
	}
}

// fetchAggregated reads an upstream's aggregated /apis; one that answers
// only the legacy list has each of its group versions converted.
func fetchAggregated(ctx context.Context, b Backend) ([]apidiscoveryv2.APIGroupDiscovery, error) {
	body, aggregated, err := fetchDiscovery(ctx, b, "/apis")
	if err != nil {
		return nil, err
	}
	if aggregated {
		list, err := apidiscovery.Decode(body)
		if err != nil {
			return nil, fmt.Errorf("decoding aggregated /apis: %w", err)
		}
		return list.Items, nil
	}
	var legacy metav1.APIGroupList
	if err := json.Unmarshal(body, &legacy); err != nil {
		return nil, fmt.Errorf("decoding /apis: %w", err)
	}
	var out []apidiscoveryv2.APIGroupDiscovery
	for _, g := range legacy.Groups {
		group := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, v := range g.Versions {
			gv, err := legacyVersion(ctx, b, schema.GroupVersion{Group: g.Name, Version: v.Version})
			if err != nil {
				return nil, err
			}
			group.Versions = append(group.Versions, gv)
		}
		out = append(out, group)
	}
	return out, nil
}

// fetchVersion is one group version of a backend's discovery.
func fetchVersion(ctx context.Context, b Backend, gv schema.GroupVersion) (apidiscoveryv2.APIVersionDiscovery, error) {
	body, aggregated, err := fetchDiscovery(ctx, b, "/apis")
	if err == nil && aggregated {
		list, err := apidiscovery.Decode(body)
		if err != nil {
			return apidiscoveryv2.APIVersionDiscovery{}, fmt.Errorf("decoding aggregated /apis: %w", err)
		}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				if g.Name == gv.Group && v.Version == gv.Version {
					return v, nil
				}
			}
		}
		// Kube lists a version its backend does not describe, empty.
		return apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}, nil
	}
	return legacyVersion(ctx, b, gv)
}

// legacyVersion converts a group version's legacy resource list.
func legacyVersion(ctx context.Context, b Backend, gv schema.GroupVersion) (apidiscoveryv2.APIVersionDiscovery, error) {
	path := "/apis/" + gv.String()
	body, _, err := fetchDiscovery(proxy.WithAccept(ctx, "application/json"), b, path)
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, fmt.Errorf("decoding %s: %w", path, err)
	}
	if len(list.APIResources) > maxResourcesPerVersion {
		list.APIResources = list.APIResources[:maxResourcesPerVersion]
	}
	return apidiscovery.Version(gv.Version, list.APIResources)
}

// fetchDiscovery reads a discovery path, bounded, and tells whether the
// answer is an aggregated document (by its Content-Type, as client-go
// tells).
func fetchDiscovery(ctx context.Context, b Backend, path string) ([]byte, bool, error) {
	resp, err := b.Get(ctx, path)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("%s answered %s", path, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxGroupListBody))
	if err != nil {
		return nil, false, err
	}
	_, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	aggregated := params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == "APIGroupDiscoveryList"
	return body, aggregated, nil
}
