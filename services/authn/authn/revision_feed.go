package authn

import "sync"

// revisionFeed counts the changes that make cached authentication answers
// wrong (a ServiceAccount deleted, or replaced under the same name) and
// wakes everyone waiting for the next one.
type revisionFeed struct {
	mu       sync.Mutex
	revision int64
	// changed is closed and replaced on every bump, so that any number of
	// streams wait on it without a subscriber list to clean up.
	changed chan struct{}
}

func newRevisionFeed() *revisionFeed {
	return &revisionFeed{changed: make(chan struct{})}
}

// bump records one more change.
func (f *revisionFeed) bump() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revision++
	close(f.changed)
	f.changed = make(chan struct{})
}

// current returns the count and a channel closed at the next bump.
func (f *revisionFeed) current() (int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.revision, f.changed
}
