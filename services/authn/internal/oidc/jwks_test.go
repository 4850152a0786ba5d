package oidc

import (
	"crypto"
	"errors"
	"testing"
)

func TestJSONWebKeySetRoundTrip(t *testing.T) {
	keys := []crypto.PublicKey{rsaKey().Public(), p256Key().Public(), p384Key().Public(), p521Key().Public(), rsaKey().Public()}
	set, err := NewJSONWebKeySet(keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 4 {
		t.Fatalf("%d keys, want 4 (the repeated key once)", len(set.Keys))
	}
	wantAlg := []string{"RS256", "ES256", "ES384", "ES512"}
	for i, jwk := range set.Keys {
		pub, err := jwk.PublicKey()
		if err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		same := pub.(interface{ Equal(crypto.PublicKey) bool }).Equal(keys[i])
		kid, _ := KeyID(keys[i])
		if !same || jwk.KeyID != kid || jwk.Algorithm != wantAlg[i] || jwk.Use != "sig" {
			t.Errorf("key %d: %+v (same key %v)", i, jwk, same)
		}
	}
	// P-521 coordinates are 66 bytes, not 65: a leading zero is kept.
	if x, _ := unb64(set.Keys[3].X); len(x) != 66 {
		t.Errorf("P-521 x is %d bytes", len(x))
	}
}

func TestJSONWebKeyRefusesBadKeys(t *testing.T) {
	good, _ := newJSONWebKey(p256Key().Public())
	offCurve := good
	offCurve.Y = good.X
	shortX := good
	shortX.X = b64([]byte{1, 2, 3})
	rsaGood, _ := newJSONWebKey(rsaKey().Public())
	smallRSA := rsaGood
	smallRSA.N = b64([]byte{0xff, 0xff})
	cases := []struct {
		name string
		key  JSONWebKey
		err  error
	}{
		{"point off the curve", offCurve, ErrInvalidJWKS},
		{"short coordinate", shortX, ErrInvalidJWKS},
		{"unknown curve", JSONWebKey{KeyType: "EC", Curve: "P-192"}, ErrUnsupportedKey},
		{"octet key", JSONWebKey{KeyType: "oct"}, ErrUnsupportedKey},
		{"RSA without modulus", JSONWebKey{KeyType: "RSA", E: "AQAB"}, ErrInvalidJWKS},
		{"tiny RSA", smallRSA, ErrUnsupportedKey},
	}
	for _, c := range cases {
		if _, err := c.key.PublicKey(); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	if _, err := ParseJSONWebKeySet([]byte(`{"keys":`)); !errors.Is(err, ErrInvalidJWKS) {
		t.Errorf("truncated set: %v", err)
	}
}
