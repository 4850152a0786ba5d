package identity

import (
	"crypto"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// TestTransport: a client using Transport reaches a backend behind Require
// as its user, whatever identity headers it set itself, and the request it
// handed in is left as it was.
func TestTransport(t *testing.T) {
	key := newEdKey(t)
	signer, err := NewSigner(SignerConfig{Key: key, Issuer: testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := NewVerifier(VerifierConfig{Keys: []crypto.PublicKey{key.Public()}, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan authenticationv1.UserInfo, 1)
	backend := httptest.NewServer(Require(verifier)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		seen <- u
	})))
	defer backend.Close()

	client := &http.Client{Timeout: 10 * time.Second, Transport: signer.Transport(nil, alice, testAudience)}
	req, _ := http.NewRequest(http.MethodGet, backend.URL+"/api/v1/namespaces?limit=1", nil)
	req.Header.Set("X-Remote-User", "mallory")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	if u := <-seen; u.Username != alice.Username {
		t.Errorf("backend saw %q, want %q", u.Username, alice.Username)
	}
	if req.Header.Get(Header) != "" || req.Header.Get("X-Remote-User") != "mallory" {
		t.Errorf("the caller's request was modified: %v", req.Header)
	}

	// Without the transport the same request is refused.
	plain, err := http.Get(backend.URL + "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	if plain.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned request: %d, want 401", plain.StatusCode)
	}
}
