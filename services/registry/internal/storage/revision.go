package storage

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// revisions asks etcd for its current revision on behalf of every
// consistent read. Reads that arrive while a request is under way share the
// next one (never the one already under way, which may predate their
// caller's last write), so a burst of reads costs two round trips, not one
// each.
type revisions struct {
	client *clientv3.Client

	mu       sync.Mutex
	inflight bool
	next     *revFetch

	progressMu       sync.Mutex
	progressInflight bool
	progressPending  bool
}

type revFetch struct {
	done chan struct{}
	rev  int64
	err  error
}

func newRevisions(client *clientv3.Client) *revisions { return &revisions{client: client} }

// current returns etcd's revision as of some moment after the call began.
func (r *revisions) current(ctx context.Context) (int64, error) {
	r.mu.Lock()
	var f *revFetch
	if !r.inflight {
		r.inflight = true
		f = &revFetch{done: make(chan struct{})}
		r.mu.Unlock()
		go r.fetch(f)
	} else {
		if r.next == nil {
			r.next = &revFetch{done: make(chan struct{})}
		}
		f = r.next
		r.mu.Unlock()
	}
	select {
	case <-f.done:
		return f.rev, f.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// fetch runs one request, then the one queued behind it, if any.
func (r *revisions) fetch(f *revFetch) {
	for f != nil {
		// A count-only range on a key nobody uses: linearizable and cheap.
		resp, err := r.client.Get(context.Background(), "/registry/.revision", clientv3.WithCountOnly())
		if err == nil {
			f.rev = resp.Header.Revision
		}
		f.err = err
		close(f.done)

		r.mu.Lock()
		f, r.next = r.next, nil
		if f == nil {
			r.inflight = false
		}
		r.mu.Unlock()
	}
}

// requestProgress asks etcd to tell every cache's watch how far it has
// got, so an idle resource's cache learns it is current. A request made
// while one is under way is sent once that one is answered, since the one
// under way may predate the revision its caller waits for.
func (r *revisions) requestProgress() {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	if r.progressInflight {
		r.progressPending = true
		return
	}
	r.progressInflight = true
	go r.sendProgress()
}

func (r *revisions) sendProgress() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = r.client.RequestProgress(ctx)
		cancel()
		r.progressMu.Lock()
		if !r.progressPending {
			r.progressInflight = false
			r.progressMu.Unlock()
			return
		}
		r.progressPending = false
		r.progressMu.Unlock()
	}
}
