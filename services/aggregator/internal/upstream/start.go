package upstream

import (
	"context"
	"time"
)

// RecheckEvery is how often endpoints out of rotation are checked again,
// between the checks of every endpoint: an upstream started a moment after
// the aggregator (make run starts them together), or one a connection
// error took out, serves again within this rather than HealthEvery. A
// check of an endpoint that refuses connections costs next to nothing.
const RecheckEvery = 200 * time.Millisecond

// Start resolves and checks the endpoints once, before it returns, so that
// an upstream started with reachable endpoints can serve at once; then it
// resolves DNS names every ResolveEvery, checks every endpoint every
// HealthEvery and those out of rotation every RecheckEvery, in the
// background, until ctx is done. Calls after the first do nothing.
func (u *Upstream) Start(ctx context.Context) {
	u.startOnce.Do(func() {
		_ = u.Resolve(ctx) // logged by lookupAll; a failing name is retried on the next tick
		go u.loop(ctx)
	})
}

// StartUnchecked is Start for an upstream that is known to start after
// the caller (the fused binary's in-process stages, whose listeners
// accept connections before anything serves them): its endpoints start
// out of rotation, unchecked, and the rechecks every RecheckEvery bring
// them in, so that nothing waits out a check timeout meanwhile.
func (u *Upstream) StartUnchecked(ctx context.Context) {
	u.startOnce.Do(func() {
		addrs, _ := u.lookupAll(ctx) // logged by lookupAll, as in Start
		u.apply(addrs)
		go u.loop(ctx)
	})
}

// loop runs the periodic lookups and checks, one at a time, so that a
// check never races a lookup that is replacing the endpoints it checks.
func (u *Upstream) loop(ctx context.Context) {
	var resolveC <-chan time.Time // nil, never ready, when there is no name to resolve
	if u.hasNames() {
		c, stop := u.ticker(u.resolveEvery)
		defer stop()
		resolveC = c
	}
	healthC, stop := u.ticker(u.healthEvery)
	defer stop()
	recheckC, stopRecheck := u.ticker(RecheckEvery)
	defer stopRecheck()
	for {
		select {
		case <-ctx.Done():
			return
		case <-resolveC:
			_ = u.Resolve(ctx)
		case <-healthC:
			u.Check(ctx)
		case <-recheckC:
			u.checkUnhealthy(ctx)
		}
	}
}

func (u *Upstream) hasNames() bool {
	for _, src := range u.sources {
		if !src.isIP {
			return true
		}
	}
	return false
}

func realTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
