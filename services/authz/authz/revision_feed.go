package authz

import "sync"

// revisionFeed holds the newest policy revision the service has loaded and
// wakes everyone waiting for the next one. Revisions only move forward.
type revisionFeed struct {
	mu       sync.Mutex
	revision int64
	// changed is closed and replaced on every new revision, so that any
	// number of streams wait on it without a subscriber list to clean up.
	changed chan struct{}
}

func newRevisionFeed() *revisionFeed {
	return &revisionFeed{changed: make(chan struct{})}
}

// publish records revision when it is newer than the current one.
func (f *revisionFeed) publish(revision int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if revision <= f.revision {
		return
	}
	f.revision = revision
	close(f.changed)
	f.changed = make(chan struct{})
}

// current returns the revision and a channel closed when a newer one is
// published.
func (f *revisionFeed) current() (int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.revision, f.changed
}
