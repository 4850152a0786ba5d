package aggregator

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// Timings of the revision streams.
const (
	// followResync is how often the endpoint set is compared with the
	// streams open, so that a new replica is followed soon after it
	// appears (until then the cache is bypassed, see trusted).
	followResync = 2 * time.Second
	// followBackoffMin and followBackoffMax bound the wait before
	// reconnecting a stream that ended.
	followBackoffMin = 50 * time.Millisecond
	followBackoffMax = 2 * time.Second
	// followIdle is how long a stream may stay silent before it is taken
	// for dead; the services send a heartbeat line every revision.Heartbeat
	// (5 s), so only a connection that died without closing gets there.
	followIdle = 20 * time.Second
)

// revisionFollower keeps one revision stream open to every endpoint of an
// upstream and tells onRevision what they say. It is what lets the
// aggregator cache a stage's answers without outliving the stage's
// knowledge: trusted reports whether every stream that matters is live.
type revisionFollower struct {
	up     *upstream.Upstream
	client *http.Client
	log    *slog.Logger
	// onRevision is called when a connection opens (changes may have
	// happened while it was down) and at every change after it, with the
	// newest revision the live endpoints hold: a replica that lags does not
	// pull it back, while replicas that all restarted counting from
	// elsewhere (another authz engine) do. Set before start; it must be
	// safe for concurrent use.
	onRevision func(revision int64)

	mu      sync.Mutex
	streams map[string]*followedStream // by endpoint URL
	// liveChanged is closed and replaced whenever a stream goes live or
	// down, so that a waiter (awaitTrusted) needs no polling.
	liveChanged chan struct{}
}

// followedStream is the state of one endpoint's stream.
type followedStream struct {
	cancel context.CancelFunc
	live   bool  // a line was read on the current connection
	rev    int64 // the last revision read on it
}

// newRevisionFollower follows u's endpoints, signing as the aggregator; nil
// when u is nil (the upstream is not configured).
func newRevisionFollower(u *upstream.Upstream, signer *identity.Signer, log *slog.Logger) *revisionFollower {
	if u == nil {
		return nil
	}
	return &revisionFollower{
		up: u,
		client: &http.Client{
			Transport:     signer.Transport(u.Transport(), selfUser, u.Name()),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		log:         log,
		streams:     map[string]*followedStream{},
		liveChanged: make(chan struct{}),
	}
}

// start follows the endpoints until ctx is done. It does nothing on a nil
// follower or one nobody listens to.
func (f *revisionFollower) start(ctx context.Context) {
	if f == nil || f.onRevision == nil {
		return
	}
	f.sync(ctx)
	go func() {
		t := time.NewTicker(followResync)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f.sync(ctx)
			}
		}
	}()
}

// trusted reports whether answers cached from this upstream may be used:
// some stream is live, and so is the stream of every healthy endpoint (the
// ones reviews go to). An unhealthy endpoint answers nothing, so its stream
// being down does not matter.
func (f *revisionFollower) trusted() bool {
	eps := f.up.Endpoints()
	f.mu.Lock()
	defer f.mu.Unlock()
	anyLive := false
	for _, ep := range eps {
		st := f.streams[ep.URL.String()]
		live := st != nil && st.live
		if ep.Healthy && !live {
			return false
		}
		anyLive = anyLive || live
	}
	return anyLive
}

// sync opens a stream to every endpoint that has none and closes the
// streams of endpoints that are gone.
func (f *revisionFollower) sync(ctx context.Context) {
	want := map[string]*url.URL{}
	for _, ep := range f.up.Endpoints() {
		want[ep.URL.String()] = ep.URL
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, st := range f.streams {
		if _, ok := want[key]; !ok {
			st.cancel()
			delete(f.streams, key)
		}
	}
	for key, u := range want {
		if _, ok := f.streams[key]; ok {
			continue
		}
		sctx, cancel := context.WithCancel(ctx)
		st := &followedStream{cancel: cancel}
		f.streams[key] = st
		go f.follow(sctx, st, u)
	}
}

// follow keeps the stream to endpoint u open until ctx is done,
// reconnecting with a backoff that starts over after a connection that
// worked.
func (f *revisionFollower) follow(ctx context.Context, st *followedStream, u *url.URL) {
	backoff := followBackoffMin
	for {
		worked, err := f.stream(ctx, st, u)
		f.setLive(st, false)
		if ctx.Err() != nil {
			return
		}
		if worked {
			backoff = followBackoffMin
		}
		f.log.Debug("revision stream ended", "upstream", f.up.Name(), "endpoint", u.String(), "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, followBackoffMax)
	}
}

// stream reads one connection's lines; worked tells whether any was read.
func (f *revisionFollower) stream(ctx context.Context, st *followedStream, u *url.URL) (worked bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath(revision.Path).String(), nil)
	if err != nil {
		return false, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("revision stream: %s", resp.Status)
	}
	idle := time.AfterFunc(followIdle, cancel)
	defer idle.Stop()
	last := int64(0)
	err = revision.Read(resp.Body, func(rev int64) error {
		idle.Reset(followIdle)
		if !worked || rev != last {
			f.onRevision(f.newest(st, rev))
		}
		last = rev
		if !worked {
			// Only now: the cache was brought up to date just above.
			f.setLive(st, true)
			worked = true
		}
		return nil
	})
	return worked, fmt.Errorf("revision stream ended: %w", err)
}

// newest records rev as st's and returns the newest revision of st and
// the live streams.
func (f *revisionFollower) newest(st *followedStream, rev int64) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	st.rev = rev
	newest := rev
	for _, other := range f.streams {
		if other.live && other != st {
			newest = max(newest, other.rev)
		}
	}
	return newest
}

// setLive records whether st's connection is live.
func (f *revisionFollower) setLive(st *followedStream, live bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st.live == live {
		return
	}
	st.live = live
	close(f.liveChanged)
	f.liveChanged = make(chan struct{})
}

// awaitTrusted waits until trusted holds or ctx is done, for callers that
// want the cache in use (tests, start-up measurements); false when ctx
// ended first.
func (f *revisionFollower) awaitTrusted(ctx context.Context) bool {
	for {
		f.mu.Lock()
		changed := f.liveChanged
		f.mu.Unlock()
		if f.trusted() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}
