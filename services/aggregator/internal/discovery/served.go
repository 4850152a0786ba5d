package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/metrics"
)

// maxResourcesPerVersion bounds what one group version's discovery adds to
// a Served catalog, so that no upstream can make the request metrics
// unbounded by listing made-up resources. Kube's largest, core v1, lists
// about 60 resources and subresources.
const maxResourcesPerVersion = 1000

// Served is the set of resources the upstreams list in discovery: the
// aggregator's metrics.Catalog, so that its request metrics name a
// resource only when some upstream serves it, whatever path a client
// makes up.
//
// It fills itself from the upstreams' discovery documents, in the
// background, when asked about a resource it does not know (one that
// appeared since, or one that does not exist), at most once per period,
// so that a flood of made-up paths costs the upstreams one refresh per
// period and the requests none. A refresh that could not read every
// upstream (one starting, or down) may be retried after a fifth of the
// period, so that a start-up race does not leave real resources
// unlabelled for long.
type Served struct {
	h     *Handler
	every time.Duration
	set   atomic.Pointer[metrics.ResourceSet]
	// next is when the next refresh may begin (h.now, in Unix
	// nanoseconds); refreshing is set while one runs.
	next       atomic.Int64
	refreshing atomic.Bool
	// listed is what each group version listed at the last refresh that
	// reached it, by path; only a refresh touches it, one at a time.
	listed map[string][]metrics.Resource
	// done, if set, is told when a refresh ends (tests).
	done func()
}

// NewServed returns the catalog of what h's upstreams and APIServices
// serve, refreshed at most once per every (DefaultCacheFor when zero). It
// starts empty: the first question starts its first refresh.
func NewServed(h *Handler, every time.Duration) *Served {
	if every <= 0 {
		every = DefaultCacheFor
	}
	s := &Served{h: h, every: every}
	empty := metrics.ResourceSet{}
	s.set.Store(&empty)
	return s
}

var _ metrics.Catalog = (*Served)(nil)

// Fill starts reading the upstreams' discovery in the background, as the
// first question would, so that the first requests a server answers are
// labelled already.
func (s *Served) Fill() { s.refreshSoon() }

// Serves implements metrics.Catalog: a map lookup, and on a miss at most
// the start of a background refresh.
func (s *Served) Serves(group, version, resource, subresource string) bool {
	if s.set.Load().Serves(group, version, resource, subresource) {
		return true
	}
	s.refreshSoon()
	return false
}

// refreshSoon starts a refresh unless one runs or the last began less
// than every ago.
func (s *Served) refreshSoon() {
	now := s.h.now().UnixNano()
	if now < s.next.Load() || !s.refreshing.CompareAndSwap(false, true) {
		return
	}
	s.next.Store(now + int64(s.every))
	go func() {
		defer s.refreshing.Store(false)
		if !s.refresh() {
			s.next.Store(now + int64(s.every/5))
		}
		if s.done != nil {
			s.done()
		}
	}()
}

// refresh replaces the set with what every group version's discovery
// lists now. A group version whose upstream does not answer keeps what it
// listed before, so that a backend's restart does not blank its labels.
// It reports whether every upstream answered.
func (s *Served) refresh() bool {
	ctx, cancel := context.WithTimeout(s.h.fetchContext(context.Background()), s.h.fetchTimeout)
	defer cancel()
	local, answers := s.h.groupList(ctx)
	// The core group has one version, which /api lists.
	paths := []string{"/api/v1"}
	for _, g := range withAggregated(local, s.h.aggregated.Load()) {
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	listed := map[string][]metrics.Resource{}
	for _, p := range paths {
		wg.Go(func() {
			rs, err := s.fetchResources(ctx, p)
			if err != nil {
				s.h.log.Debug("discovery left out of the metrics catalog", "path", p, "err", err)
				return
			}
			mu.Lock()
			listed[p] = rs
			mu.Unlock()
		})
	}
	wg.Wait()
	complete := answers == len(s.h.backends) && len(listed) == len(paths)
	for _, p := range paths {
		if _, ok := listed[p]; !ok && s.listed[p] != nil {
			listed[p] = s.listed[p]
		}
	}
	s.listed = listed
	set := metrics.ResourceSet{}
	for _, rs := range listed {
		for _, r := range rs {
			set[r] = struct{}{}
		}
	}
	s.set.Store(&set)
	return complete
}

// fetchResources reads the discovery document at path (/api/v1 or
// /apis/<group>/<version>) from the upstream it is routed to.
func (s *Served) fetchResources(ctx context.Context, path string) ([]metrics.Resource, error) {
	name, ok := s.h.table.Route(path)
	if !ok {
		return nil, fmt.Errorf("no route for %s", path)
	}
	b := s.h.backend(name)
	if b == nil {
		return nil, fmt.Errorf("no backend serves upstream %q", name)
	}
	resp, err := b.Get(ctx, path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", path, resp.Status)
	}
	var list metav1.APIResourceList
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxGroupListBody)).Decode(&list); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	if len(list.APIResources) > maxResourcesPerVersion {
		list.APIResources = list.APIResources[:maxResourcesPerVersion]
	}
	return metrics.ResourcesOf(&list)
}
