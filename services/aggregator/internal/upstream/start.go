package upstream

import (
	"context"
	"time"
)

// Start resolves and checks the endpoints once, before it returns, so that
// an upstream started with reachable endpoints can serve at once; then it
// resolves DNS names every ResolveEvery and checks every endpoint every
// HealthEvery, in the background, until ctx is done. Calls after the first
// do nothing.
func (u *Upstream) Start(ctx context.Context) {
	u.startOnce.Do(func() {
		_ = u.Resolve(ctx) // logged by lookupAll; a failing name is retried on the next tick
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
	for {
		select {
		case <-ctx.Done():
			return
		case <-resolveC:
			_ = u.Resolve(ctx)
		case <-healthC:
			u.Check(ctx)
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
