package revision

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// lineReader reads the revisions of a stream on a goroutine, so that a
// test waits for each with a bound instead of blocking forever.
func lineReader(body io.Reader) <-chan int64 {
	out := make(chan int64, 16)
	go func() {
		defer close(out)
		_ = Read(body, func(rev int64) error { out <- rev; return nil })
	}()
	return out
}

// next returns the next revision of lines, failing after 10 s.
func next(t *testing.T, lines <-chan int64) (int64, bool) {
	t.Helper()
	select {
	case rev, ok := <-lines:
		return rev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10s")
		return 0, false
	}
}

// open serves h and opens a stream to it with ctx.
func open(t *testing.T, ctx context.Context, h http.Handler) (*http.Response, <-chan int64) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp, lineReader(resp.Body)
}

// TestHandlerStream: the current revision at once, each newer one as it is
// recorded (Set or Bump), older ones never, and the stream ends on stop.
func TestHandlerStream(t *testing.T) {
	feed := NewFeed()
	feed.Set(7)
	stop, stopStreams := context.WithCancel(context.Background())
	defer stopStreams()
	resp, lines := open(t, context.Background(), Handler(feed, stop.Done()))
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
	if rev, _ := next(t, lines); rev != 7 {
		t.Fatalf("first line = %d, want the current revision 7", rev)
	}
	feed.Set(5) // older: not news
	feed.Set(9)
	if rev, _ := next(t, lines); rev != 9 {
		t.Fatalf("after Set(9) = %d, want 9", rev)
	}
	feed.Bump()
	if rev, _ := next(t, lines); rev != 10 {
		t.Fatalf("after Bump = %d, want 10", rev)
	}
	stopStreams()
	if _, ok := next(t, lines); ok {
		t.Fatal("stream still open after stop")
	}
}

// TestHandlerEndsOnDisconnect: a client that goes away ends its stream,
// so that the handler does not wait on the feed for nobody.
func TestHandlerEndsOnDisconnect(t *testing.T) {
	done := make(chan struct{})
	h := Handler(NewFeed(), nil)
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		h.ServeHTTP(w, r)
	})
	ctx, disconnect := context.WithCancel(context.Background())
	_, lines := open(t, ctx, wrapped)
	if rev, _ := next(t, lines); rev != 0 {
		t.Fatalf("first line = %d, want 0", rev)
	}
	disconnect()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("handler still running 10s after the client went away")
	}
}

// TestHandlerHeartbeat: with nothing new, the current revision is sent
// again, so that a reader can tell a quiet stream from a dead one.
func TestHandlerHeartbeat(t *testing.T) {
	feed := NewFeed()
	feed.Set(3)
	_, lines := open(t, context.Background(), handler(feed, nil, 10*time.Millisecond))
	for i := range 3 {
		if rev, ok := next(t, lines); !ok || rev != 3 {
			t.Fatalf("line %d = %d %v, want 3", i, rev, ok)
		}
	}
}
