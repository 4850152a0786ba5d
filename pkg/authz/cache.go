package authz

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// CacheConfig configures a Cached authorizer.
type CacheConfig struct {
	// AllowTTL is how long an Allow is reused. Zero means Allows are not
	// cached.
	AllowTTL time.Duration
	// DenyTTL is how long a Deny or NoOpinion is reused. Zero means they are
	// not cached.
	DenyTTL time.Duration
	// MaxEntries bounds the cache; the least recently used answer goes
	// first. Required, positive.
	MaxEntries int
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
	// OnLookup, if set, is told whether each call was answered from the
	// cache, with the caller's context, so metrics can count it.
	OnLookup func(ctx context.Context, hit bool)
}

// Cached is an Authorizer that remembers another one's answers, keyed by the
// whole Attributes value, and never outlives the policy: it knows the newest
// policy revision (pushed with Advance, or seen on an answer), drops every
// answer computed before it, and refuses to store an older one, so a lagging
// authz replica cannot put a revoked allow back. Such a stale answer is still
// returned to the caller that asked (it is the best answer to be had), but
// the next lookup asks again.
//
// Identical concurrent lookups share one call to the inner authorizer.
// Errors are never cached.
type Cached struct {
	next     Authorizer
	allowTTL time.Duration
	denyTTL  time.Duration
	max      int
	now      func() time.Time
	onLookup func(ctx context.Context, hit bool)

	mu       sync.Mutex
	revision int64                    // newest policy revision known
	entries  map[string]*list.Element // of *cacheEntry
	lru      *list.List               // front: most recently used
	inflight map[string]*flight

	// joined, when set by a test, runs each time a lookup joins a call
	// already in flight.
	joined func()
}

var _ Authorizer = (*Cached)(nil)

type cacheEntry struct {
	key     string
	res     Result
	expires time.Time
}

// NewCached wraps a in a cache configured by cfg.
func NewCached(a Authorizer, cfg CacheConfig) (*Cached, error) {
	switch {
	case a == nil:
		return nil, fmt.Errorf("%w: cache: nil Authorizer", ErrInvalidConfig)
	case cfg.AllowTTL < 0 || cfg.DenyTTL < 0:
		return nil, fmt.Errorf("%w: cache: negative TTL", ErrInvalidConfig)
	case cfg.MaxEntries <= 0:
		return nil, fmt.Errorf("%w: cache: MaxEntries must be positive", ErrInvalidConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Cached{
		next:     a,
		allowTTL: cfg.AllowTTL,
		denyTTL:  cfg.DenyTTL,
		max:      cfg.MaxEntries,
		now:      cfg.Now,
		onLookup: cfg.OnLookup,
		entries:  map[string]*list.Element{},
		lru:      list.New(),
		inflight: map[string]*flight{},
	}, nil
}

// Authorize answers from the cache or asks the inner authorizer.
func (c *Cached) Authorize(ctx context.Context, a Attributes) (Result, error) {
	key := cacheKey(a)
	c.mu.Lock()
	res, hit := c.lookupLocked(key)
	var f *flight
	if !hit {
		f = c.joinLocked(ctx, key, a)
	}
	c.mu.Unlock()
	if c.onLookup != nil {
		c.onLookup(ctx, hit)
	}
	if hit {
		tracing.Event(ctx, "authorization cache hit")
		return res, nil
	}
	return f.wait(ctx)
}

// Advance tells the cache that policy revision exists: every answer
// computed before it is dropped, and none will be stored again. Revisions
// only move forward; an older one is ignored.
func (c *Cached) Advance(revision int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advanceLocked(revision)
}

// Follow tells the cache the newest policy revision the authorizers that
// answer now hold. Forward, it is Advance. Backward, none of them holds the
// newer revision any more (every replica restarted, say with another
// engine, whose revisions count from elsewhere): every answer is dropped
// and the cache follows the new count, caching nothing an authorizer would
// not now answer itself.
func (c *Cached) Follow(revision int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if revision >= c.revision {
		c.advanceLocked(revision)
		return
	}
	c.revision = revision
	c.entries = map[string]*list.Element{}
	c.lru.Init()
	c.inflight = map[string]*flight{}
}

// Revision returns the newest policy revision the cache knows.
func (c *Cached) Revision() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revision
}

// Len returns how many answers the cache holds, expired ones included until
// they are looked up or evicted.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *Cached) advanceLocked(revision int64) {
	if revision <= c.revision {
		return
	}
	c.revision = revision
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*cacheEntry); e.res.Revision < revision {
			c.removeLocked(el)
		}
		el = next
	}
	// Calls already in flight may answer from before this revision: later
	// lookups must not join them but ask afresh.
	c.inflight = map[string]*flight{}
}

func (c *Cached) lookupLocked(key string) (Result, bool) {
	el, ok := c.entries[key]
	if !ok {
		return Result{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.removeLocked(el)
		return Result{}, false
	}
	c.lru.MoveToFront(el)
	return e.res, true
}

// storeLocked keeps res unless its kind is not cached or it predates the
// newest known revision.
func (c *Cached) storeLocked(key string, res Result) {
	ttl := c.denyTTL
	if res.Decision == DecisionAllow {
		ttl = c.allowTTL
	}
	if ttl <= 0 || res.Revision < c.revision {
		return
	}
	e := &cacheEntry{key: key, res: res, expires: c.now().Add(ttl)}
	if el, ok := c.entries[key]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
		return
	}
	c.entries[key] = c.lru.PushFront(e)
	for c.lru.Len() > c.max {
		c.removeLocked(c.lru.Back())
	}
}

func (c *Cached) removeLocked(el *list.Element) {
	c.lru.Remove(el)
	delete(c.entries, el.Value.(*cacheEntry).key)
}

// cacheKey is the whole attribute tuple. JSON is deterministic here: struct
// fields in order, map keys (user extra) sorted.
func cacheKey(a Attributes) string {
	b, _ := json.Marshal(a)
	return string(b)
}
