package revision

import (
	"encoding/json"
	"net/http"
	"time"
)

// Heartbeat is how often the current revision is sent again when nothing
// changed, so that a reader notices a connection that died without closing
// (a partition, a frozen process) and stops trusting its cache.
const Heartbeat = 5 * time.Second

// Handler serves feed as newline-delimited JSON Lines: the current revision
// at once, then each newer one, flushed line by line, until the client goes
// away or stop is done. stop is there for server shutdown, which does not
// cancel the requests of streams by itself.
func Handler(feed *Feed, stop <-chan struct{}) http.Handler {
	return handler(feed, stop, Heartbeat)
}

// handler is Handler with the heartbeat as a parameter, so that a test
// sees one without waiting seconds.
func handler(feed *Feed, stop <-chan struct{}, every time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		rc := http.NewResponseController(w)
		enc := json.NewEncoder(w)
		heartbeat := time.NewTicker(every)
		defer heartbeat.Stop()
		for {
			rev, changed := feed.Current()
			if enc.Encode(Line{Revision: rev}) != nil || rc.Flush() != nil {
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
