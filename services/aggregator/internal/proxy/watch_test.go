package proxy

import (
	"bufio"
	"net/http"
	"testing"
	"time"
)

func TestWatchStreamsEventsAsTheyArrive(t *testing.T) {
	second := make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"ADDED"}` + "\n"))
		http.NewResponseController(w).Flush()
		select {
		case <-second:
		case <-r.Context().Done():
			return
		case <-time.After(waitLimit):
			return
		}
		_, _ = w.Write([]byte(`{"type":"MODIFIED"}` + "\n"))
	})
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b)})
	resp, err := front.Client().Get(front.URL + "/api/v1/namespaces/ns/pods?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("client spoke %s, want HTTP/2", resp.Proto)
	}
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || lines.Text() != `{"type":"ADDED"}` {
		t.Fatalf("first event %q (%v), want ADDED before the second is written", lines.Text(), lines.Err())
	}
	close(second)
	if !lines.Scan() || lines.Text() != `{"type":"MODIFIED"}` {
		t.Fatalf("second event %q (%v), want MODIFIED", lines.Text(), lines.Err())
	}
}
