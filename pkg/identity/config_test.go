package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestNewSignerRejects(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]SignerConfig{
		"no key":       {Issuer: testIssuer},
		"no issuer":    {Key: newECKey(t)},
		"negative TTL": {Key: newECKey(t), Issuer: testIssuer, TTL: -time.Second},
		"P-384":        {Key: p384, Issuer: testIssuer},
		"RSA":          {Key: rsaKey, Issuer: testIssuer},
	} {
		if _, err := NewSigner(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNewVerifierRejects(t *testing.T) {
	pub := newECKey(t).Public()
	for name, cfg := range map[string]VerifierConfig{
		"no keys":         {Issuer: testIssuer, Audience: testAudience},
		"no issuer":       {Keys: []crypto.PublicKey{pub}, Audience: testAudience},
		"no audience":     {Keys: []crypto.PublicKey{pub}, Issuer: testIssuer},
		"negative leeway": {Keys: []crypto.PublicKey{pub}, Issuer: testIssuer, Audience: testAudience, Leeway: -1},
		"private key":     {Keys: []crypto.PublicKey{newECKey(t)}, Issuer: testIssuer, Audience: testAudience},
	} {
		if _, err := NewVerifier(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSignRejects(t *testing.T) {
	s := newSigner(t, newEdKey(t), testIssuer)
	if _, err := s.Sign(authenticationv1.UserInfo{}, testAudience, httpRequest("GET", "/")); err == nil {
		t.Error("signed for a user without a name")
	}
	if _, err := s.Sign(alice, "", httpRequest("GET", "/")); err == nil {
		t.Error("signed without an audience")
	}
}
