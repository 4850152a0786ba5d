package authn

import (
	"encoding/json"
	"net/http"
	"time"
)

// RevisionsPath streams a counter of ServiceAccount deletions, so that the
// aggregator drops cached token reviews as soon as an account goes rather than
// when they expire.
const RevisionsPath = "/kubesplit/v1/revisions"

// revisionHeartbeat is how often the current revision is sent again when
// nothing changed, so that a reader notices a connection that died without
// closing (a partition, a frozen process) and stops trusting its cache.
const revisionHeartbeat = 5 * time.Second

// revisionLine is one line of the stream.
type revisionLine struct {
	Revision int64 `json:"revision"`
}

// revisionsHandler serves feed as newline-delimited JSON: the current
// revision at once, then each newer one, flushed line by line, until the
// client goes away or stop is done (server shutdown, which does not cancel
// the requests of streams by itself).
func revisionsHandler(feed *revisionFeed, stop <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		rc := http.NewResponseController(w)
		enc := json.NewEncoder(w)
		heartbeat := time.NewTicker(revisionHeartbeat)
		defer heartbeat.Stop()
		for {
			rev, changed := feed.current()
			if enc.Encode(revisionLine{Revision: rev}) != nil || rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-changed:
			case <-heartbeat.C:
			}
		}
	})
}
