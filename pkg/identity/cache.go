package identity

import (
	"sync"
	"time"
)

// maxCached bounds each cache below: enough for every path a busy hop
// asserts within an assertion's lifetime, small enough to ignore.
const maxCached = 4096

// cache remembers values by key until a deadline. Signing and verifying an
// assertion cost tens of microseconds of public-key arithmetic on every
// hop of every request; the same assertion serves every request of one
// user to one path within its lifetime, so both sides keep what they did.
// It is bounded: when full, expired entries go, and if none has, all do.
type cache[V any] struct {
	mu sync.Mutex
	m  map[string]cacheEntry[V]
}

type cacheEntry[V any] struct {
	v     V
	until time.Time
}

func (c *cache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !now.Before(e.until) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *cache[V]) put(key string, v V, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cacheEntry[V]{}
	}
	if len(c.m) >= maxCached {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			clear(c.m)
		}
	}
	c.m[key] = cacheEntry[V]{v: v, until: until}
}
