package authn

import (
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// CacheConfig configures NewCached.
type CacheConfig struct {
	// TTL is how long a recognised token's answer is reused. Required (> 0).
	// It bounds how long a revoked token keeps working unless Invalidate is
	// called.
	TTL time.Duration
	// NegativeTTL is how long "not recognised" is reused, which spares the
	// authenticator a client retrying a bad token. Zero disables it, so a
	// token becomes usable as soon as it is issued. Errors are never cached.
	NegativeTTL time.Duration
	// MaxEntries bounds the number of cached answers (> 0); the least
	// recently used is dropped first.
	MaxEntries int
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
	// OnLookup, if set, is told whether each call was answered from the
	// cache, with the caller's context, so tracing and metrics can say so.
	OnLookup func(ctx context.Context, hit bool)
}

// Cached is an Authenticator that remembers another's answers. Entries are
// keyed by an HMAC-SHA256 of the token (and the requested audiences) under a
// random per-cache key, so the cache never holds a token, and its keys
// cannot be checked against guessed tokens outside this process. Concurrent
// lookups of the same token share one call to the wrapped authenticator.
type Cached struct {
	next   Authenticator
	cfg    CacheConfig
	secret []byte
	flight singleflight.Group
	// joined, when set by a test, is called once a caller is waiting on a
	// shared call, so the test can release it without sleeping.
	joined func()

	mu      sync.Mutex
	gen     uint64 // bumped by Invalidate, so answers from before it are not stored
	lru     *list.List
	entries map[cacheKey]*list.Element
}

var _ Authenticator = (*Cached)(nil)

// cacheKey is an HMAC-SHA256 digest, never the token itself.
type cacheKey [sha256.Size]byte

// cacheEntry is one remembered answer.
type cacheEntry struct {
	key     cacheKey
	resp    *Response
	ok      bool
	expires time.Time
}

// NewCached wraps a with a decision cache.
func NewCached(a Authenticator, cfg CacheConfig) (*Cached, error) {
	switch {
	case a == nil:
		return nil, fmt.Errorf("%w: cache needs an authenticator", ErrInvalidConfig)
	case cfg.TTL <= 0:
		return nil, fmt.Errorf("%w: cache TTL must be positive", ErrInvalidConfig)
	case cfg.NegativeTTL < 0:
		return nil, fmt.Errorf("%w: cache NegativeTTL must not be negative", ErrInvalidConfig)
	case cfg.MaxEntries <= 0:
		return nil, fmt.Errorf("%w: cache MaxEntries must be positive", ErrInvalidConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	secret := make([]byte, sha256.Size)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("authn: cache key: %w", err)
	}
	return &Cached{next: a, cfg: cfg, secret: secret, lru: list.New(), entries: map[cacheKey]*list.Element{}}, nil
}

// AuthenticateToken answers from the cache, or asks the wrapped
// authenticator once for all concurrent callers with the same token.
func (c *Cached) AuthenticateToken(ctx context.Context, token string) (*Response, bool, error) {
	key := c.key(ctx, token)
	e, gen, hit := c.lookup(key)
	if c.cfg.OnLookup != nil {
		c.cfg.OnLookup(ctx, hit)
	}
	if hit {
		tracing.Event(ctx, "authentication cache hit")
		return cloneResponse(e.resp), e.ok, nil
	}
	// The shared call must not die with the first caller's context: the
	// others are waiting for it. Its values (audiences, trace) are kept; its
	// duration is bounded by the wrapped authenticator (the webhook client's
	// timeout).
	shared := context.WithoutCancel(ctx)
	ch := c.flight.DoChan(fmt.Sprintf("%x/%d", key, gen), func() (any, error) {
		resp, ok, err := c.next.AuthenticateToken(shared, token)
		if err == nil {
			c.store(key, gen, resp, ok)
		}
		return cacheEntry{resp: resp, ok: ok}, err
	})
	if c.joined != nil {
		c.joined()
	}
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, false, res.Err
		}
		e := res.Val.(cacheEntry)
		return cloneResponse(e.resp), e.ok, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// Invalidate drops every cached answer, for when identities change under
// the cache (a service account or token file is deleted or replaced).
// Lookups already in flight are not stored.
func (c *Cached) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.lru.Init()
	clear(c.entries)
}

// Len is the number of cached answers, expired ones included until looked up.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// key digests the token together with the audiences asked for, because the
// answer depends on both. Lengths are written first so that no two
// different inputs produce the same byte stream.
func (c *Cached) key(ctx context.Context, token string) cacheKey {
	mac := hmac.New(sha256.New, c.secret)
	auds, _ := AudiencesFrom(ctx)
	var n [8]byte
	writeString := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		mac.Write(n[:])
		mac.Write([]byte(s))
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(auds)))
	mac.Write(n[:])
	for _, a := range auds {
		writeString(a)
	}
	writeString(token)
	var k cacheKey
	mac.Sum(k[:0])
	return k
}

// lookup returns the live entry for key, if any, and the generation a new
// answer for it would be stored under.
func (c *Cached) lookup(key cacheKey) (*cacheEntry, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, c.gen, false
	}
	e := el.Value.(*cacheEntry)
	if !c.cfg.Now().Before(e.expires) {
		c.remove(el)
		return nil, c.gen, false
	}
	c.lru.MoveToFront(el)
	return e, c.gen, true
}

// store remembers an answer computed in generation gen, unless the cache
// was invalidated meanwhile or this kind of answer is not cached.
func (c *Cached) store(key cacheKey, gen uint64, resp *Response, ok bool) {
	ttl := c.cfg.TTL
	if !ok {
		ttl = c.cfg.NegativeTTL
	}
	if ttl <= 0 || (ok && resp == nil) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if el, found := c.entries[key]; found {
		c.remove(el)
	}
	e := &cacheEntry{key: key, resp: cloneResponse(resp), ok: ok, expires: c.cfg.Now().Add(ttl)}
	c.entries[key] = c.lru.PushFront(e)
	for c.lru.Len() > c.cfg.MaxEntries {
		c.remove(c.lru.Back())
	}
}

// remove drops one entry; c.mu must be held.
func (c *Cached) remove(el *list.Element) {
	c.lru.Remove(el)
	delete(c.entries, el.Value.(*cacheEntry).key)
}
