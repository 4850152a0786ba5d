package aggregator

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// fakeConn is one revision stream a test drives: each value sent on lines
// is written as a line, closing done ends the connection.
type fakeConn struct {
	lines chan int64
	done  chan struct{}
}

// controlledStage is a stage whose revision streams are handed to the test
// one connection at a time, and that checks the aggregator's assertion.
func controlledStage(t *testing.T, signerDir string) (*httptest.Server, <-chan *fakeConn) {
	t.Helper()
	keys, err := identity.LoadPublicKeys(filepath.Join(signerDir, IdentityPublicKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	v, err := identity.NewVerifier(identity.VerifierConfig{Keys: keys, Issuer: DefaultIdentityIssuer, Audience: authzUpstream})
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan *fakeConn)
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.Handle("GET "+revision.Path, identity.Require(v)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &fakeConn{lines: make(chan int64), done: make(chan struct{})}
		select {
		case conns <- c:
		case <-r.Context().Done():
			return
		}
		rc := http.NewResponseController(w)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-c.done:
				return
			case rev := <-c.lines:
				if json.NewEncoder(w).Encode(revision.Line{Revision: rev}) != nil || rc.Flush() != nil {
					return
				}
			}
		}
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, conns
}

// startFollower follows the stage at url and reports each revision on the
// channel returned.
func startFollower(t *testing.T, dir string, urls ...string) (*revisionFollower, <-chan int64) {
	t.Helper()
	signer, err := newSigner(Config{CertDir: dir, IdentityIssuer: DefaultIdentityIssuer})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	up, err := upstream.New(upstream.Config{Name: authzUpstream, URLs: urls, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Registered before the server's own Close, so it runs after the
	// follower stopped: httptest waits for the streams' handlers.
	t.Cleanup(cancel)
	up.Start(ctx)
	f := newRevisionFollower(up, signer, log)
	got := make(chan int64, 16)
	f.onRevision = func(rev int64) { got <- rev }
	f.start(ctx)
	return f, got
}

// receive returns the next value of ch, failing after 10 s.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing within 10s")
		var zero T
		return zero
	}
}

// awaitUntrusted waits, on the follower's own signal, until it stops
// vouching for the cache.
func awaitUntrusted(t *testing.T, f *revisionFollower) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		changed := f.liveChanged
		f.mu.Unlock()
		if !f.trusted() {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("still trusted 10s after the stream ended")
		}
	}
}

// TestFollowerFollowsRevisions: the first revision of a connection and
// every change are reported, a repeated one (a heartbeat) is not; the
// cache is trusted only while the stream is live, and a reconnection
// reports the revision again, as changes may have been missed meanwhile.
func TestFollowerFollowsRevisions(t *testing.T) {
	dir := prepareKey(t)
	stage, conns := controlledStage(t, dir)
	f, got := startFollower(t, dir, stage.URL)
	if f.trusted() {
		t.Fatal("trusted before any stream is live")
	}

	conn := receive(t, conns)
	conn.lines <- 3
	if rev := receive(t, got); rev != 3 {
		t.Fatalf("first revision = %d, want 3", rev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !f.awaitTrusted(ctx) {
		t.Fatal("not trusted with the stream live")
	}
	conn.lines <- 3
	conn.lines <- 4
	if rev := receive(t, got); rev != 4 {
		t.Fatalf("after a repeat and a change = %d, want 4 (repeats are not news)", rev)
	}

	close(conn.done)
	awaitUntrusted(t, f)
	conn = receive(t, conns)
	conn.lines <- 4
	if rev := receive(t, got); rev != 4 {
		t.Fatalf("after reconnecting = %d, want 4 reported again", rev)
	}
	if !f.awaitTrusted(ctx) {
		t.Fatal("not trusted after reconnecting")
	}
}

// TestFollowerReportsTheNewestLiveRevision: with two replicas, one that
// lags does not pull the reported revision back; once the newer one is
// gone, the lagging one's count is what the replicas hold, and it is
// reported even though it is lower (a restart into another engine).
func TestFollowerReportsTheNewestLiveRevision(t *testing.T) {
	dir := prepareKey(t)
	ahead, aheadConns := controlledStage(t, dir)
	behind, behindConns := controlledStage(t, dir)
	f, got := startFollower(t, dir, ahead.URL, behind.URL)
	a := receive(t, aheadConns)
	b := receive(t, behindConns)
	a.lines <- 10
	if rev := receive(t, got); rev != 10 {
		t.Fatalf("first = %d, want 10", rev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for !func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.streams[ahead.URL].live }() {
		select {
		case <-ctx.Done():
			t.Fatal("the first stream never went live")
		case <-time.After(5 * time.Millisecond):
		}
	}
	b.lines <- 3
	if rev := receive(t, got); rev != 10 {
		t.Fatalf("a lagging replica reported %d, want 10 (the newest live)", rev)
	}
	close(a.done)
	awaitUntrusted(t, f)
	b.lines <- 4
	if rev := receive(t, got); rev != 4 {
		t.Fatalf("with only the other replica = %d, want 4", rev)
	}
}
