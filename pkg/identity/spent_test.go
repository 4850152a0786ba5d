package identity

import (
	"crypto"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The verifier remembers at most MaxWrites write assertions: past that it
// refuses writes (429 through Require) rather than forget one, and each is
// forgotten once it has expired, so writes are accepted again.
func TestSpentIsBounded(t *testing.T) {
	const max = 3
	key := newEdKey(t)
	now := t0
	clock := func() time.Time { return now }
	s, err := NewSigner(SignerConfig{Key: key, Issuer: testIssuer, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(VerifierConfig{Keys: []crypto.PublicKey{key.Public()}, Issuer: testIssuer, Audience: testAudience, MaxWrites: max, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	write := func() error {
		r := httpRequest(http.MethodDelete, "/api/v1/namespaces/a/configmaps/x")
		_, err := v.Verify(sign(t, s, testAudience, r), r)
		return err
	}
	for i := range max {
		if err := write(); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if err := write(); !errors.Is(err, ErrBusy) {
		t.Fatalf("write %d: %v, want ErrBusy", max, err)
	}
	// Reads are not remembered, so a full memory does not stop them.
	read := httpRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	if _, err := v.Verify(sign(t, s, testAudience, read), read); err != nil {
		t.Fatalf("read with the memory full: %v", err)
	}

	r := httptest.NewRequest(http.MethodDelete, "/api/v1/namespaces/a/configmaps/x", nil)
	if err := s.SetHeader(r, alice, testAudience); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	Require(v)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("handler ran") })).ServeHTTP(w, r)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a write with the memory full: %d Retry-After %q, want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}

	now = t0.Add(DefaultTTL + DefaultLeeway + time.Second)
	for i := range 2 * max {
		if err := write(); err != nil {
			t.Fatalf("write %d after the first ones expired: %v", i, err)
		}
		now = now.Add(DefaultTTL)
	}
	if n := v.spent.len(); n > max {
		t.Errorf("%d ids held, more than %d", n, max)
	}
}

// An id is refused for as long as its assertion would be accepted, and
// forgotten after.
func TestSpentForgetsAtExpiry(t *testing.T) {
	var sp spent
	sp.max = 10
	until := t0.Add(time.Minute)
	if err := sp.use("a", until, t0); err != nil {
		t.Fatal(err)
	}
	if err := sp.use("a", until, until.Add(-time.Nanosecond)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second use before expiry: %v, want ErrReplayed", err)
	}
	if err := sp.use("b", until.Add(time.Minute), until); err != nil {
		t.Fatal(err)
	}
	if sp.len() != 1 {
		t.Errorf("%d ids held after one expired, want 1", sp.len())
	}
}
