package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/revision"
)

// fakeRevisions serves a revision stream as authn and authz do: revision
// 0 at once, then every value sent on revs. Closing stop ends every stream
// and refuses new ones, so that the server can be closed (httptest waits
// for handlers).
func fakeRevisions(revs <-chan int64, stop <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
			http.Error(w, "stopped", http.StatusServiceUnavailable)
			return
		default:
		}
		rc := http.NewResponseController(w)
		enc := json.NewEncoder(w)
		rev := int64(0)
		for {
			if enc.Encode(revision.Line{Revision: rev}) != nil || rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case rev = <-revs:
			}
		}
	})
}

// withRevisions serves the revision stream of revs beside next.
func withRevisions(next http.Handler, revs <-chan int64, stop <-chan struct{}) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+revision.Path, fakeRevisions(revs, stop))
	mux.Handle("/", next)
	return mux
}

// awaitTrusted waits, for up to 10 s, until every configured follower
// vouches for its cache.
func awaitTrusted(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, f := range s.revisions {
		if f != nil && f.onRevision != nil && !f.awaitTrusted(ctx) {
			t.Fatal("revision streams not live within 10s")
		}
	}
}
