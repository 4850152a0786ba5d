package proxy

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// send posts body to the front, chunked (no length, as a client streaming
// it would), and returns the response with its body read.
func send(t *testing.T, front string, c *http.Client, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, front+"/api/v1/namespaces/a/configmaps", io.MultiReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, got
}

// With BufferBody, Decorate can read the body without consuming it (the
// aggregator's signer digests it), and the backend still gets it whole,
// with its length; a body over the limit is a 413 and reaches no backend.
func TestBufferBody(t *testing.T) {
	var sent []byte
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
	})
	var digested []byte
	decorate := func(out *http.Request) error {
		if out.Body == nil {
			return nil
		}
		if out.GetBody == nil {
			t.Error("Decorate got a body it cannot read again")
			return nil
		}
		body, err := out.GetBody()
		if err != nil {
			return err
		}
		digested, err = io.ReadAll(body)
		return err
	}
	const limit = 64
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b), Decorate: decorate, BufferBody: limit})

	body := []byte(strings.Repeat("x", limit))
	if resp, got := send(t, front.URL, front.Client(), body); resp.StatusCode != http.StatusOK {
		t.Fatalf("a body at the limit: %d %s", resp.StatusCode, got)
	}
	if !bytes.Equal(digested, body) || !bytes.Equal(sent, body) {
		t.Errorf("Decorate read %q and the backend got %q, want %q for both", digested, sent, body)
	}
	if rs := b.received(); rs[0].ContentLength != limit {
		t.Errorf("sent with Content-Length %d, want %d", rs[0].ContentLength, limit)
	}

	resp, got := send(t, front.URL, front.Client(), append(body, 'x'))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || statusOf(t, got).Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d %s, want a 413 Status", resp.StatusCode, got)
	}
	if n := len(b.received()); n != 1 {
		t.Errorf("the backend got %d requests, want 1: the oversized one was sent", n)
	}

	// A read has no body to hold: it goes out without one.
	if resp, _ := do(t, front, http.MethodGet, "/api/v1/namespaces", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

// A body cut by a limit set in front of the proxy is a 413 as well, and
// reaches no backend.
func TestBufferBodyUnderAnEarlierLimit(t *testing.T) {
	b := newBackend(t, nil)
	limit := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, 8)
			next.ServeHTTP(w, r)
		})
	}
	front, _ := newFront(t, Config{Upstream: newUpstream(t, b), BufferBody: 64}, limit)
	resp, got := send(t, front.URL, front.Client(), []byte(strings.Repeat("x", 16)))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || statusOf(t, got).Code != http.StatusRequestEntityTooLarge {
		t.Errorf("%d %s, want a 413 Status", resp.StatusCode, got)
	}
	if n := len(b.received()); n != 0 {
		t.Errorf("the backend got %d requests, want none", n)
	}
}
