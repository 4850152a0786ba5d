package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

const (
	testIssuer   = "kubesplit-aggregator"
	testAudience = "registry"
)

// t0 is the fixed time tests sign at.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

var alice = authenticationv1.UserInfo{
	Username: "alice",
	UID:      "uid-1",
	Groups:   []string{"dev", "system:authenticated"},
	Extra:    map[string]authenticationv1.ExtraValue{"scopes": {"read", "write"}},
}

func newECKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newEdKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newSigner(t testing.TB, key crypto.Signer, issuer string) *Signer {
	t.Helper()
	s, err := NewSigner(SignerConfig{Key: key, Issuer: issuer, Now: at(t0)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newVerifier(t testing.TB, now time.Time, keys ...crypto.PublicKey) *Verifier {
	t.Helper()
	v, err := NewVerifier(VerifierConfig{Keys: keys, Issuer: testIssuer, Audience: testAudience, Now: at(now)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func httpRequest(method, target string) *http.Request {
	return httptest.NewRequest(method, target, nil)
}

func sign(t testing.TB, s *Signer, audience string, r *http.Request) string {
	t.Helper()
	token, err := s.Sign(alice, audience, r)
	if err != nil {
		t.Fatal(err)
	}
	return token
}
