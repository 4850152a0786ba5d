package authn

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// counting wraps a and counts its calls.
type counting struct {
	a     Authenticator
	calls atomic.Int32
}

func (c *counting) AuthenticateToken(ctx context.Context, token string) (*Response, bool, error) {
	c.calls.Add(1)
	return c.a.AuthenticateToken(ctx, token)
}

// newTestCache caches the test token file (and flaky) behind a counter.
func newTestCache(t *testing.T, cfg CacheConfig) (*Cached, *counting, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	next := &counting{a: Union(newTestTokenFile(t, testTokens), flaky)}
	cfg.Now = clock.Now
	c, err := NewCached(next, cfg)
	if err != nil {
		t.Fatalf("NewCached: %v", err)
	}
	return c, next, clock
}

// mustAuth calls c and fails the test on an error.
func mustAuth(t *testing.T, c Authenticator, token string) bool {
	t.Helper()
	_, ok, err := c.AuthenticateToken(context.Background(), token)
	if err != nil {
		t.Fatalf("AuthenticateToken(%s): %v", token, err)
	}
	return ok
}

func TestCacheHitAndMiss(t *testing.T) {
	var hits []bool
	c, next, _ := newTestCache(t, CacheConfig{TTL: time.Minute, MaxEntries: 10,
		OnLookup: func(_ context.Context, hit bool) { hits = append(hits, hit) }})
	for range 3 {
		resp, ok, err := c.AuthenticateToken(context.Background(), "bob-token")
		if err != nil || !ok || resp.User.Username != "bob" {
			t.Fatalf("got %+v %v %v", resp, ok, err)
		}
		resp.User.Groups[0] = "tampered" // must not reach the cached copy
	}
	if next.calls.Load() != 1 {
		t.Errorf("%d calls to the authenticator, want 1", next.calls.Load())
	}
	if fmt.Sprint(hits) != "[false true true]" {
		t.Errorf("OnLookup saw %v", hits)
	}
	resp, _, _ := c.AuthenticateToken(context.Background(), "bob-token")
	if resp.User.Groups[0] != "dev" {
		t.Errorf("cached user was changed through a returned copy: %q", resp.User.Groups)
	}
}

func TestCacheExpiry(t *testing.T) {
	c, next, clock := newTestCache(t, CacheConfig{TTL: time.Minute, NegativeTTL: 10 * time.Second, MaxEntries: 10})
	mustAuth(t, c, "alice-token")
	mustAuth(t, c, "nobody-token")
	clock.Add(10 * time.Second) // the negative answer has expired, the positive not
	if mustAuth(t, c, "nobody-token") || !mustAuth(t, c, "alice-token") {
		t.Fatal("answers changed")
	}
	if next.calls.Load() != 3 {
		t.Errorf("%d calls after the negative TTL, want 3", next.calls.Load())
	}
	clock.Add(50 * time.Second)
	mustAuth(t, c, "alice-token")
	if next.calls.Load() != 4 {
		t.Errorf("%d calls after the TTL, want 4", next.calls.Load())
	}
}

func TestCacheSkipsNegativesWithoutNegativeTTLAndErrors(t *testing.T) {
	c, next, _ := newTestCache(t, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	for range 2 {
		mustAuth(t, c, "nobody-token")
		if _, _, err := c.AuthenticateToken(context.Background(), "flaky-token"); !errors.Is(err, errBackendDown) {
			t.Fatalf("error %v, want errBackendDown", err)
		}
	}
	if next.calls.Load() != 4 || c.Len() != 0 {
		t.Errorf("%d calls, %d entries; want 4 calls and nothing cached", next.calls.Load(), c.Len())
	}
}

func TestCacheBound(t *testing.T) {
	c, next, _ := newTestCache(t, CacheConfig{TTL: time.Minute, MaxEntries: 2})
	mustAuth(t, c, "alice-token")
	mustAuth(t, c, "bob-token")
	mustAuth(t, c, "alice-token") // alice is now the most recently used
	mustAuth(t, c, "admin-token") // so bob goes
	if c.Len() != 2 {
		t.Errorf("%d entries, want 2", c.Len())
	}
	mustAuth(t, c, "alice-token")
	if next.calls.Load() != 3 {
		t.Fatalf("%d calls, want 3 (alice still cached)", next.calls.Load())
	}
	mustAuth(t, c, "bob-token")
	if next.calls.Load() != 4 {
		t.Errorf("%d calls, want 4 (bob evicted)", next.calls.Load())
	}
}

func TestCacheInvalidate(t *testing.T) {
	c, next, _ := newTestCache(t, CacheConfig{TTL: time.Minute, NegativeTTL: time.Minute, MaxEntries: 10})
	mustAuth(t, c, "alice-token")
	mustAuth(t, c, "nobody-token")
	c.Invalidate()
	if c.Len() != 0 {
		t.Fatalf("%d entries after Invalidate", c.Len())
	}
	mustAuth(t, c, "alice-token")
	if next.calls.Load() != 3 {
		t.Errorf("%d calls, want 3", next.calls.Load())
	}
}

// TestCacheInvalidateDuringLookup: an answer computed before Invalidate
// (say, for a service account deleted meanwhile) is not stored after it.
func TestCacheInvalidateDuringLookup(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	slow := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		close(started)
		<-release
		return &Response{}, true, nil
	})
	c, err := NewCached(slow, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { _, ok, _ := c.AuthenticateToken(context.Background(), "t"); done <- ok }()
	<-started
	c.Invalidate()
	close(release)
	if !<-done {
		t.Error("the caller lost its answer")
	}
	if c.Len() != 0 {
		t.Error("an answer from before Invalidate was stored")
	}
}

func TestCacheSharesConcurrentLookups(t *testing.T) {
	const callers = 8
	var calls atomic.Int32
	release := make(chan struct{})
	slow := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		calls.Add(1)
		<-release
		return nil, false, nil
	})
	// No negative caching: only the shared call can explain a single call.
	c, err := NewCached(slow, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	var joined sync.WaitGroup
	joined.Add(callers)
	c.joined = joined.Done
	var done sync.WaitGroup
	for range callers {
		done.Go(func() { _, _, _ = c.AuthenticateToken(context.Background(), "same-token") })
	}
	joined.Wait()
	close(release)
	done.Wait()
	if calls.Load() != 1 {
		t.Errorf("%d calls for %d concurrent lookups, want 1", calls.Load(), callers)
	}
}

func TestCacheWaiterHonoursItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		<-release
		return nil, false, nil
	})
	c, err := NewCached(slow, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.joined = cancel
	if _, ok, err := c.AuthenticateToken(ctx, "t"); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v %v, want context.Canceled", ok, err)
	}
}

// TestCacheKeyIsAHash: the cache holds an HMAC-SHA256 of the token, never
// the token, and the key covers the audiences asked for.
func TestCacheKeyIsAHash(t *testing.T) {
	const token = "alice-token"
	c, next, _ := newTestCache(t, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	mustAuth(t, c, token)
	mac := hmac.New(sha256.New, c.secret)
	var n [8]byte
	mac.Write(n[:]) // no audiences
	binary.BigEndian.PutUint64(n[:], uint64(len(token)))
	mac.Write(n[:])
	mac.Write([]byte(token))
	var want cacheKey
	mac.Sum(want[:0])
	if _, ok := c.entries[want]; !ok || len(c.entries) != 1 {
		t.Fatalf("cache keys are not HMAC-SHA256(token): %x", keysOf(c))
	}
	dump := fmt.Sprintf("%#v %#v", c.entries, c.lru.Front().Value)
	if bytes.Contains([]byte(dump), []byte(token)) {
		t.Errorf("the token is in the cache: %s", dump)
	}

	other, _, _ := newTestCache(t, CacheConfig{TTL: time.Minute, MaxEntries: 10})
	if other.key(context.Background(), token) == want {
		t.Error("two caches share a key: the HMAC secret is not per cache")
	}
	_, _, _ = c.AuthenticateToken(WithAudiences(context.Background(), []string{"api"}), token)
	if next.calls.Load() != 2 || c.Len() != 2 {
		t.Errorf("%d calls, %d entries: an answer for no audience was reused for audience api", next.calls.Load(), c.Len())
	}
}

func keysOf(c *Cached) []cacheKey {
	var keys []cacheKey
	for k := range c.entries {
		keys = append(keys, k)
	}
	return keys
}

func TestNewCachedValidates(t *testing.T) {
	a := newTestTokenFile(t, testTokens)
	for name, tc := range map[string]struct {
		a   Authenticator
		cfg CacheConfig
	}{
		"nil authenticator": {nil, CacheConfig{TTL: time.Minute, MaxEntries: 1}},
		"no TTL":            {a, CacheConfig{MaxEntries: 1}},
		"negative NegTTL":   {a, CacheConfig{TTL: time.Minute, NegativeTTL: -1, MaxEntries: 1}},
		"no bound":          {a, CacheConfig{TTL: time.Minute}},
	} {
		if _, err := NewCached(tc.a, tc.cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: error %v, want ErrInvalidConfig", name, err)
		}
	}
}
