package revision

import "sync"

// Feed holds a revision that only moves forward and wakes everyone waiting
// for the next one. The zero value is not ready; use NewFeed.
type Feed struct {
	mu       sync.Mutex
	revision int64
	// changed is closed and replaced on every new revision, so that any
	// number of streams wait on it without a subscriber list to clean up.
	changed chan struct{}
}

// NewFeed returns a feed at revision 0.
func NewFeed() *Feed {
	return &Feed{changed: make(chan struct{})}
}

// Set records revision when it is newer than the current one; an older or
// equal one is not news and is ignored.
func (f *Feed) Set(revision int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if revision <= f.revision {
		return
	}
	f.advance(revision)
}

// Bump moves the revision one forward, for a feed that counts changes
// rather than mirroring a revision of its own.
func (f *Feed) Bump() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance(f.revision + 1)
}

// advance sets the revision and wakes the waiters; f.mu is held.
func (f *Feed) advance(revision int64) {
	f.revision = revision
	close(f.changed)
	f.changed = make(chan struct{})
}

// Current returns the revision and a channel closed when a newer one is
// recorded. Both come from one lock, so a change between reading the
// revision and waiting is never missed.
func (f *Feed) Current() (int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.revision, f.changed
}
