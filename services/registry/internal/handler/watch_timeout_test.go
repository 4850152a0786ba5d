package handler

import (
	"net/http"
	"testing"
)

// timeoutSeconds=0 is the server's default timeout, as in kube, and a
// timeout too large for a Duration does not overflow into one already
// passed: either way the watch stays open and delivers later events.
func TestWatchTimeoutSeconds(t *testing.T) {
	for _, seconds := range []string{"0", "9223372036854775807"} {
		t.Run(seconds, func(t *testing.T) {
			e := newEnv(t)
			w := e.watch("timeoutSeconds=" + seconds)
			e.mustDo("POST", cmPath, `{"metadata":{"name":"later"}}`, http.StatusCreated)
			w.expect("ADDED", "later")
		})
	}
}
