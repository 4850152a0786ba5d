package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxGroupListBody bounds an upstream's /apis answer.
const maxGroupListBody = 4 << 20

// groupCache holds the merged /apis for a while, so that kubectl's burst
// of discovery requests costs each upstream one fetch.
type groupCache struct {
	mu      sync.Mutex // held during a refresh, so that concurrent requests share it
	at      time.Time
	groups  []metav1.APIGroup
	answers int      // how many upstreams answered the last refresh
	missing []string // the upstreams that did not, by name
}

// groupList returns the merged groups, refreshing them when they are older
// than CacheFor, and how many upstreams answered. A merge some upstream
// was missing from (one still starting) is kept IncompleteFor only, so
// that its groups show, and a starting stack is ready, soon after it
// answers.
func (h *Handler) groupList(ctx context.Context) ([]metav1.APIGroup, int) {
	groups, answers, _ := h.refreshGroups(ctx)
	return groups, answers
}

// refreshGroups is groupList, with the upstreams that did not answer.
func (h *Handler) refreshGroups(ctx context.Context) ([]metav1.APIGroup, int, []string) {
	c := &h.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	now := h.now()
	keep := h.cacheFor
	if c.answers < len(h.backends) {
		keep = min(keep, IncompleteFor)
	}
	if !c.at.IsZero() && now.Sub(c.at) < keep {
		return c.groups, c.answers, slices.Clone(c.missing)
	}
	lists := h.fetchAll(ctx)
	c.groups, c.answers, c.at = h.merge(lists), len(lists), now
	c.missing = nil
	for _, name := range slices.Sorted(maps.Keys(h.backends)) {
		if _, ok := lists[name]; !ok {
			c.missing = append(c.missing, name)
		}
	}
	return c.groups, c.answers, slices.Clone(c.missing)
}

// Registered is the merged discovery of the configured upstreams (not the
// APIServices with backends of their own), as fresh as /apis serves it,
// and the upstreams left out of it because they did not answer: kube's
// autoregistration of the groups the servers behind it serve.
func (h *Handler) Registered(ctx context.Context) ([]metav1.APIGroup, []string) {
	groups, _, missing := h.refreshGroups(ctx)
	return groups, missing
}

// fetchAll fetches every upstream's /apis concurrently and returns those
// that answered, by name. It runs without ctx's cancellation, since its
// result serves other requests too, and with its own timeout.
func (h *Handler) fetchAll(ctx context.Context) map[string][]metav1.APIGroup {
	ctx = h.fetchContext(context.WithoutCancel(ctx))
	ctx, cancel := context.WithTimeout(ctx, h.fetchTimeout)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	lists := map[string][]metav1.APIGroup{}
	for name, b := range h.backends {
		wg.Go(func() {
			groups, err := fetchGroups(ctx, b)
			if err != nil {
				h.log.Warn("upstream left out of /apis", "upstream", name, "err", err)
				return
			}
			mu.Lock()
			lists[name] = groups
			mu.Unlock()
		})
	}
	wg.Wait()
	return lists
}

func fetchGroups(ctx context.Context, b Backend) ([]metav1.APIGroup, error) {
	resp, err := b.Get(ctx, "/apis")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/apis answered %s", resp.Status)
	}
	var list metav1.APIGroupList
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxGroupListBody)).Decode(&list); err != nil {
		return nil, fmt.Errorf("decoding /apis: %w", err)
	}
	return list.Groups, nil
}

// merge builds one group list from every upstream's, keeping of each
// group version only what the table routes to the upstream that listed it:
// a group two services both claim appears once, served by the one its
// requests go to. Upstreams are taken in name order, groups in the order
// each lists them.
func (h *Handler) merge(lists map[string][]metav1.APIGroup) []metav1.APIGroup {
	var order []string
	byName := map[string]*metav1.APIGroup{}
	for _, upstream := range slices.Sorted(maps.Keys(lists)) {
		for _, g := range lists[upstream] {
			for _, v := range g.Versions {
				if name, _ := h.table.Route("/apis/" + g.Name + "/" + v.Version); name != upstream {
					continue
				}
				merged := byName[g.Name]
				if merged == nil {
					merged = &metav1.APIGroup{Name: g.Name}
					byName[g.Name] = merged
					order = append(order, g.Name)
				}
				merged.Versions = append(merged.Versions, v)
				if v.Version == g.PreferredVersion.Version && merged.PreferredVersion.Version == "" {
					merged.PreferredVersion = v
				}
			}
		}
	}
	groups := make([]metav1.APIGroup, 0, len(order))
	for _, name := range order {
		g := byName[name]
		if g.PreferredVersion.Version == "" {
			g.PreferredVersion = g.Versions[0]
		}
		groups = append(groups, *g)
	}
	return groups
}
