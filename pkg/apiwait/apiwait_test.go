package apiwait

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The informers start only once the API answers: not while the aggregator
// says the registry is not there (503) or nothing listens, and at once
// after; an error of the API's own (403) is an answer.
func TestStartWaitsForTheAPI(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer int
	}{{"ok", http.StatusOK}, {"forbidden", http.StatusForbidden}} {
		t.Run(c.name, func(t *testing.T) {
			var up atomic.Bool
			var asked atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				w.Header().Set("Content-Type", "application/json")
				if !up.Load() {
					w.WriteHeader(http.StatusServiceUnavailable)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`))
					return
				}
				w.WriteHeader(c.answer)
				if c.answer == http.StatusOK {
					_, _ = w.Write([]byte(`{"kind":"NamespaceList","apiVersion":"v1","items":[]}`))
					return
				}
				_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`))
			}))
			defer srv.Close()
			client := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			Start(ctx, client, func(<-chan struct{}) { close(started) })

			deadline := time.Now().Add(5 * time.Second)
			for asked.Load() < 3 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			select {
			case <-started:
				t.Fatal("started while the API was not there")
			default:
			}
			up.Store(true)
			select {
			case <-started:
			case <-time.After(5 * time.Second):
				t.Fatal("not started 5 s after the API answered")
			}
		})
	}
}

// A wait for an API that never answers ends with ctx, and the informers
// start then, left to their own retries.
func TestStartWhenContextEnds(t *testing.T) {
	client := kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://127.0.0.1:1"})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	Start(ctx, client, func(<-chan struct{}) { close(started) })
	cancel()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("not started after ctx ended")
	}
}
