package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"testing"
)

func TestSigningAlgorithm(t *testing.T) {
	small := must(rsa.GenerateKey(rand.Reader, 1024))
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	cases := []struct {
		key crypto.PublicKey
		alg string
		err error
	}{
		{rsaKey().Public(), "RS256", nil},
		{p256Key().Public(), "ES256", nil},
		{p384Key().Public(), "ES384", nil},
		{p521Key().Public(), "ES512", nil},
		{small.Public(), "", ErrUnsupportedKey},
		{edPub, "", ErrUnsupportedKey},
	}
	for _, c := range cases {
		if alg, err := SigningAlgorithm(c.key); alg != c.alg || !errors.Is(err, c.err) {
			t.Errorf("%T: %q, %v; want %q, %v", c.key, alg, err, c.alg, c.err)
		}
	}
}

func TestKeyIDIsKubesThumbprint(t *testing.T) {
	for _, pub := range []crypto.PublicKey{rsaKey().Public(), p256Key().Public()} {
		der, _ := x509.MarshalPKIXPublicKey(pub)
		sum := sha256.Sum256(der)
		if kid, err := KeyID(pub); err != nil || kid != base64.RawURLEncoding.EncodeToString(sum[:]) {
			t.Errorf("%T: %q, %v", pub, kid, err)
		}
	}
	if a, b := must(KeyID(rsaKey().Public())), must(KeyID(rsaKey2().Public())); a == b {
		t.Error("two keys share an id")
	}
	for _, empty := range []crypto.PublicKey{&rsa.PublicKey{}, &ecdsa.PublicKey{}, (*rsa.PublicKey)(nil), nil} {
		if _, err := KeyID(empty); !errors.Is(err, ErrUnsupportedKey) {
			t.Errorf("%#v: %v, want ErrUnsupportedKey", empty, err)
		}
	}
}
