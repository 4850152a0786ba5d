package quota

import "sync"

// namespaceLocks serialises the quota checks of one namespace within this
// process: they would otherwise race for the same quota's resourceVersion
// and mostly fail with conflicts. Replicas still race, and the conflict
// retry settles that.
type namespaceLocks struct {
	mu    sync.Mutex
	locks map[string]*refLock
}

type refLock struct {
	sync.Mutex
	refs int
}

// lock takes ns's lock and returns the function that releases it.
func (l *namespaceLocks) lock(ns string) (unlock func()) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*refLock{}
	}
	rl := l.locks[ns]
	if rl == nil {
		rl = &refLock{}
		l.locks[ns] = rl
	}
	rl.refs++
	l.mu.Unlock()
	rl.Lock()
	return func() {
		rl.Unlock()
		l.mu.Lock()
		if rl.refs--; rl.refs == 0 {
			delete(l.locks, ns)
		}
		l.mu.Unlock()
	}
}
