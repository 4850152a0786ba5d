package authz

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// scripted answers with whatever the test sets, and counts calls.
type scripted struct {
	mu    sync.Mutex
	res   Result
	err   error
	calls int
	byKey map[string]Result // answers for particular users
}

func (s *scripted) Authorize(_ context.Context, a Attributes) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if res, ok := s.byKey[a.User.Username]; ok {
		return res, nil
	}
	return s.res, s.err
}

func (s *scripted) set(res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res, s.err = res, err
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func newTestCache(t *testing.T, inner Authorizer, cfg CacheConfig) *Cached {
	t.Helper()
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = 100
	}
	c, err := NewCached(inner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lookup asks c and fails the test on an error.
func lookup(t *testing.T, c *Cached, a Attributes) Result {
	t.Helper()
	res, err := c.Authorize(context.Background(), a)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	return res
}

var cacheBase = Attributes{
	User:            authenticationv1.UserInfo{Username: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}},
	Verb:            "get",
	Namespace:       "ns",
	APIGroup:        "apps",
	APIVersion:      "v1",
	Resource:        "deployments",
	Subresource:     "scale",
	Name:            "d",
	ResourceRequest: true,
}

func TestCacheHitsByWholeTuple(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow, Revision: 1}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute, DenyTTL: time.Minute})
	lookup(t, c, cacheBase)
	lookup(t, c, cacheBase)
	if inner.count() != 1 {
		t.Fatalf("inner asked %d times for one tuple, want 1", inner.count())
	}
	// Each variant differs from the base in one element of the tuple, so
	// each must be asked about on its own.
	variants := []func(*Attributes){
		func(a *Attributes) { a.User.Username = "bob" },
		func(a *Attributes) { a.User.UID = "2" },
		func(a *Attributes) { a.User.Groups = []string{"dev", "ops"} },
		func(a *Attributes) { a.User.Extra = map[string]authenticationv1.ExtraValue{"k": {"w"}} },
		func(a *Attributes) { a.Verb = "update" },
		func(a *Attributes) { a.Namespace = "other" },
		func(a *Attributes) { a.APIGroup = "extensions" },
		func(a *Attributes) { a.APIVersion = "v1beta1" },
		func(a *Attributes) { a.Resource = "replicasets" },
		func(a *Attributes) { a.Subresource = "status" },
		func(a *Attributes) { a.Name = "e" },
		func(a *Attributes) { a.ResourceRequest = false },
		func(a *Attributes) { a.Path = "/x" },
	}
	for i, vary := range variants {
		a := cacheBase
		vary(&a)
		before := inner.count()
		lookup(t, c, a)
		if inner.count() != before+1 {
			t.Errorf("variant %d answered from another tuple's entry", i)
		}
	}
}

func TestCacheTTLs(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	inner := &scripted{byKey: map[string]Result{
		"allowed":   {Decision: DecisionAllow},
		"denied":    {Decision: DecisionDeny},
		"undecided": {Decision: DecisionNoOpinion},
	}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute, DenyTTL: 10 * time.Second, Now: clock.Now})
	as := map[string]Attributes{}
	for name := range inner.byKey {
		as[name] = Attributes{User: authenticationv1.UserInfo{Username: name}}
		lookup(t, c, as[name])
	}
	asks := func(name string) bool {
		before := inner.count()
		lookup(t, c, as[name])
		return inner.count() > before
	}

	clock.Add(9 * time.Second)
	for name := range as {
		if asks(name) {
			t.Errorf("%s: asked again within its TTL", name)
		}
	}
	clock.Add(time.Second) // 10s: the deny TTL is over
	if !asks("denied") || !asks("undecided") {
		t.Error("a Deny or NoOpinion outlived DenyTTL")
	}
	if asks("allowed") {
		t.Error("an Allow expired with DenyTTL")
	}
	clock.Add(50 * time.Second) // 60s
	if !asks("allowed") {
		t.Error("an Allow outlived AllowTTL")
	}
}

func TestCacheZeroTTLDoesNotCache(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionDeny}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute})
	lookup(t, c, cacheBase)
	lookup(t, c, cacheBase)
	if inner.count() != 2 || c.Len() != 0 {
		t.Fatalf("asked %d times, %d entries; want 2 and 0", inner.count(), c.Len())
	}
}

func TestCacheDoesNotCacheErrors(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow}, err: errors.New("partial")}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute, DenyTTL: time.Minute})
	for range 2 {
		if _, err := c.Authorize(context.Background(), cacheBase); err == nil {
			t.Fatal("error lost")
		}
	}
	if inner.count() != 2 {
		t.Fatalf("asked %d times, want 2: an error was cached", inner.count())
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute, MaxEntries: 2})
	user := func(n string) Attributes { return Attributes{User: authenticationv1.UserInfo{Username: n}} }
	lookup(t, c, user("a"))
	lookup(t, c, user("b"))
	lookup(t, c, user("a")) // a is now the most recent
	lookup(t, c, user("c")) // evicts b
	if c.Len() != 2 {
		t.Fatalf("%d entries, want 2", c.Len())
	}
	before := inner.count()
	lookup(t, c, user("a"))
	if inner.count() != before {
		t.Error("the most recently used entry was evicted")
	}
	lookup(t, c, user("b"))
	if inner.count() != before+1 {
		t.Error("the least recently used entry was kept")
	}
}

func TestCacheAdvanceDropsOlderAnswers(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow, Revision: 5}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Hour})
	lookup(t, c, cacheBase)
	c.Advance(5) // the revision the answer was computed at: still good
	lookup(t, c, cacheBase)
	if inner.count() != 1 {
		t.Fatalf("answer at the current revision dropped")
	}
	// The policy changes: authz pushes revision 6 and now denies.
	inner.set(Result{Decision: DecisionDeny, Revision: 6}, nil)
	c.Advance(6)
	if c.Len() != 0 {
		t.Fatalf("%d entries after Advance, want 0", c.Len())
	}
	if res := lookup(t, c, cacheBase); res.Decision != DecisionDeny || inner.count() != 2 {
		t.Fatalf("got %v after %d calls; the revoked allow survived Advance", res.Decision, inner.count())
	}
	c.Advance(3)
	if c.Revision() != 6 {
		t.Errorf("revision went back to %d", c.Revision())
	}
}

// TestCacheFollowsARestartedCount: authz restarted with another engine
// counts revisions from elsewhere, lower: Follow drops every answer of the
// old count and caches the new engine's.
func TestCacheFollowsARestartedCount(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow, Revision: 100}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Hour, DenyTTL: time.Hour})
	c.Follow(100)
	lookup(t, c, cacheBase)
	inner.set(Result{Decision: DecisionDeny, Revision: 7}, nil)
	c.Follow(7)
	if c.Len() != 0 || c.Revision() != 7 {
		t.Fatalf("after following a lower count: %d entries at revision %d, want 0 at 7", c.Len(), c.Revision())
	}
	if res := lookup(t, c, cacheBase); res.Decision != DecisionDeny {
		t.Fatalf("the old engine's allow survived: %v", res.Decision)
	}
	if lookup(t, c, cacheBase); inner.count() != 2 || c.Len() != 1 {
		t.Errorf("the new engine's answer was not cached: %d calls, %d entries", inner.count(), c.Len())
	}
	c.Follow(8)
	if c.Len() != 0 || c.Revision() != 8 {
		t.Errorf("forward, Follow is Advance: %d entries at %d", c.Len(), c.Revision())
	}
}

// TestCacheRefusesStaleStore: a replica lagging behind answers with the
// allow that revision 6 revoked; it must not be cached.
func TestCacheRefusesStaleStore(t *testing.T) {
	inner := &scripted{res: Result{Decision: DecisionAllow, Revision: 5}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Hour, DenyTTL: time.Hour})
	lookup(t, c, cacheBase)
	c.Advance(6) // pushed by the up-to-date replica

	// The next call reaches the lagging replica, still at revision 5.
	if res := lookup(t, c, cacheBase); res.Decision != DecisionAllow || res.Revision != 5 {
		t.Fatalf("got %+v from the lagging replica", res)
	}
	if c.Len() != 0 {
		t.Fatal("a stale answer was stored")
	}
	// So the lookup after it asks again, and reaches the current replica.
	inner.set(Result{Decision: DecisionDeny, Revision: 6}, nil)
	if res := lookup(t, c, cacheBase); res.Decision != DecisionDeny || inner.count() != 3 {
		t.Fatalf("got %v after %d calls, want Deny from a third call", res.Decision, inner.count())
	}
	lookup(t, c, cacheBase)
	if inner.count() != 3 {
		t.Error("the current answer was not cached")
	}
}

func TestCacheLearnsRevisionFromAnswers(t *testing.T) {
	inner := &scripted{byKey: map[string]Result{
		"old": {Decision: DecisionAllow, Revision: 5},
		"new": {Decision: DecisionAllow, Revision: 7},
	}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Hour})
	old := Attributes{User: authenticationv1.UserInfo{Username: "old"}}
	lookup(t, c, old)
	lookup(t, c, Attributes{User: authenticationv1.UserInfo{Username: "new"}})
	if c.Revision() != 7 {
		t.Fatalf("revision %d, want 7", c.Revision())
	}
	before := inner.count()
	lookup(t, c, old)
	if inner.count() != before+1 {
		t.Error("an answer older than one seen since was still used")
	}
}

// pending is a call blocked in a gate until the test answers it.
type pending struct {
	attrs Attributes
	reply chan Result
}

// gate is an Authorizer whose calls wait for the test.
type gate struct{ calls chan pending }

func newGate() *gate { return &gate{calls: make(chan pending, 16)} }

func (g *gate) Authorize(ctx context.Context, a Attributes) (Result, error) {
	p := pending{attrs: a, reply: make(chan Result, 1)}
	g.calls <- p
	select {
	case res := <-p.reply:
		return res, nil
	case <-ctx.Done():
		return Result{Decision: DecisionNoOpinion}, ctx.Err()
	}
}

// next returns the next call to reach the gate.
func (g *gate) next(t *testing.T) pending {
	t.Helper()
	select {
	case p := <-g.calls:
		return p
	case <-time.After(5 * time.Second):
		t.Fatal("no call reached the authorizer")
		return pending{}
	}
}

// none checks that no call is waiting at the gate.
func (g *gate) none(t *testing.T) {
	t.Helper()
	select {
	case p := <-g.calls:
		t.Fatalf("unexpected call for %+v", p.attrs)
	default:
	}
}

type outcome struct {
	res Result
	err error
}

func authorizeAsync(ctx context.Context, c *Cached, a Attributes) chan outcome {
	out := make(chan outcome, 1)
	go func() {
		res, err := c.Authorize(ctx, a)
		out <- outcome{res, err}
	}()
	return out
}

func receive(t *testing.T, out chan outcome) outcome {
	t.Helper()
	select {
	case o := <-out:
		return o
	case <-time.After(5 * time.Second):
		t.Fatal("lookup did not return")
		return outcome{}
	}
}

func TestCacheSingleflight(t *testing.T) {
	const n = 8
	g := newGate()
	c := newTestCache(t, g, CacheConfig{AllowTTL: time.Hour})
	var joined sync.WaitGroup
	joined.Add(n - 1)
	c.joined = joined.Done

	outs := make([]chan outcome, n)
	outs[0] = authorizeAsync(context.Background(), c, cacheBase)
	call := g.next(t)
	for i := 1; i < n; i++ {
		outs[i] = authorizeAsync(context.Background(), c, cacheBase)
	}
	joined.Wait()
	call.reply <- Result{Decision: DecisionAllow, Revision: 1}
	for _, out := range outs {
		if o := receive(t, out); o.err != nil || o.res.Decision != DecisionAllow {
			t.Errorf("got %+v", o)
		}
	}
	g.none(t)
}

// TestCacheAdvanceDuringFlight: an answer computed before a push arrives
// after it. Lookups made after the push must not share it, and it must not
// be stored.
func TestCacheAdvanceDuringFlight(t *testing.T) {
	g := newGate()
	c := newTestCache(t, g, CacheConfig{AllowTTL: time.Hour, DenyTTL: time.Hour})
	c.joined = func() { t.Error("a lookup after Advance joined a call from before it") }

	first := authorizeAsync(context.Background(), c, cacheBase)
	stale := g.next(t)
	c.Advance(6)
	second := authorizeAsync(context.Background(), c, cacheBase)
	fresh := g.next(t)

	stale.reply <- Result{Decision: DecisionAllow, Revision: 5}
	if o := receive(t, first); o.res.Decision != DecisionAllow {
		t.Fatalf("first lookup got %+v", o)
	}
	fresh.reply <- Result{Decision: DecisionDeny, Revision: 6}
	if o := receive(t, second); o.res.Decision != DecisionDeny {
		t.Fatalf("second lookup got %+v", o)
	}
	if res := lookup(t, c, cacheBase); res.Decision != DecisionDeny {
		t.Fatalf("cached %v, want Deny", res.Decision)
	}
	g.none(t)
}

// TestCacheWaiterGivesUpAlone: the first caller's cancellation ends only
// its own wait; the shared call goes on for the others.
func TestCacheWaiterGivesUpAlone(t *testing.T) {
	g := newGate()
	c := newTestCache(t, g, CacheConfig{AllowTTL: time.Hour})
	joined := make(chan struct{}, 1)
	c.joined = func() { joined <- struct{}{} }

	ctx, cancel := context.WithCancel(context.Background())
	first := authorizeAsync(ctx, c, cacheBase)
	call := g.next(t)
	second := authorizeAsync(context.Background(), c, cacheBase)
	<-joined
	cancel()
	if o := receive(t, first); !errors.Is(o.err, context.Canceled) || o.res.Decision == DecisionAllow {
		t.Fatalf("cancelled lookup got %+v", o)
	}
	call.reply <- Result{Decision: DecisionAllow}
	if o := receive(t, second); o.err != nil || o.res.Decision != DecisionAllow {
		t.Fatalf("second lookup got %+v", o)
	}
}

func TestCachePanicIsAnError(t *testing.T) {
	c := newTestCache(t, AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		panic("boom")
	}), CacheConfig{AllowTTL: time.Hour})
	res, err := c.Authorize(context.Background(), cacheBase)
	if err == nil || res.Decision == DecisionAllow {
		t.Fatalf("got %+v, %v; want an error", res, err)
	}
}

func TestNewCachedValidates(t *testing.T) {
	for name, c := range map[string]struct {
		a   Authorizer
		cfg CacheConfig
	}{
		"nil authorizer": {nil, CacheConfig{MaxEntries: 1}},
		"no MaxEntries":  {AlwaysAllow(), CacheConfig{}},
		"negative TTL":   {AlwaysAllow(), CacheConfig{MaxEntries: 1, DenyTTL: -1}},
	} {
		if _, err := NewCached(c.a, c.cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: error %v, want ErrInvalidConfig", name, err)
		}
	}
}

// OnLookup hears of every lookup, a miss when the inner authorizer was
// asked and a hit when it was not.
func TestCacheOnLookup(t *testing.T) {
	var seen []bool
	inner := &scripted{res: Result{Decision: DecisionAllow}}
	c := newTestCache(t, inner, CacheConfig{AllowTTL: time.Minute,
		OnLookup: func(_ context.Context, hit bool) { seen = append(seen, hit) }})
	lookup(t, c, cacheBase)
	lookup(t, c, cacheBase)
	if len(seen) != 2 || seen[0] || !seen[1] || inner.count() != 1 {
		t.Errorf("OnLookup saw %v with %d inner calls, want [false true] and 1", seen, inner.count())
	}
}
