package identity

import (
	"crypto"
	"errors"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// The signer reuses an assertion for the same user, audience and request
// while more than half its life is left, and never for anything else.
func TestSignerReusesAssertions(t *testing.T) {
	now := t0
	key := newEdKey(t)
	s, err := NewSigner(SignerConfig{Key: key, Issuer: testIssuer, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	r := httpRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	first := sign(t, s, testAudience, r)
	if again := sign(t, s, testAudience, httpRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/x")); again != first {
		t.Error("the same request was signed anew within the assertion's life")
	}
	for name, other := range map[string]func() (string, error){
		"path": func() (string, error) {
			return s.Sign(alice, testAudience, httpRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/y"))
		},
		"method": func() (string, error) {
			return s.Sign(alice, testAudience, httpRequest(http.MethodDelete, "/api/v1/namespaces/a/configmaps/x"))
		},
		"audience": func() (string, error) { return s.Sign(alice, "authz", r) },
		"groups": func() (string, error) {
			u := alice
			u.Groups = []string{"dev"}
			return s.Sign(u, testAudience, r)
		},
		"extra": func() (string, error) {
			u := alice
			u.Extra = map[string]authenticationv1.ExtraValue{"scopes": {"read"}}
			return s.Sign(u, testAudience, r)
		},
	} {
		token, err := other()
		if err != nil {
			t.Fatal(err)
		}
		if token == first {
			t.Errorf("a request differing in %s reused the assertion", name)
		}
	}
	now = t0.Add(DefaultTTL/2 + time.Second)
	if renewed := sign(t, s, testAudience, r); renewed == first {
		t.Error("an assertion past half its life was reused")
	}
}

// A verified assertion is remembered, but still only for the request it
// is bound to, and not past its expiry.
func TestVerifierRemembersAssertions(t *testing.T) {
	key := newEdKey(t)
	s := newSigner(t, key, testIssuer)
	r := httpRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	token := sign(t, s, testAudience, r)
	now := t0
	v, err := NewVerifier(VerifierConfig{Keys: []crypto.PublicKey{key.Public()}, Issuer: testIssuer, Audience: testAudience, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if u, err := v.Verify(token, r); err != nil || u.Username != alice.Username {
			t.Fatalf("verify %d: %v %v", i, u, err)
		}
		if _, err := v.Verify(token, httpRequest(http.MethodGet, "/api/v1/namespaces/a/secrets/x")); !errors.Is(err, ErrWrongRequest) {
			t.Errorf("verify %d for another path: %v, want ErrWrongRequest", i, err)
		}
	}
	now = t0.Add(DefaultTTL + time.Hour)
	if _, err := v.Verify(token, r); !errors.Is(err, ErrExpired) {
		t.Errorf("an expired assertion that was verified before: %v, want ErrExpired", err)
	}
}
