package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
)

// minRSABits is the smallest RSA modulus accepted; smaller keys are
// breakable, and kube's own tooling generates 2048 bits or more.
const minRSABits = 2048

// curves are the curves accepted, with their JWK names and JWS algorithms.
var curves = []struct {
	curve elliptic.Curve
	name  string
	alg   string
}{
	{elliptic.P256(), "P-256", "ES256"},
	{elliptic.P384(), "P-384", "ES384"},
	{elliptic.P521(), "P-521", "ES512"},
}

// SigningAlgorithm is the JWS algorithm pub verifies, chosen as kube does:
// RS256 for RSA (2048 bits or more), and for ECDSA the one of its curve
// (ES256, ES384, ES512). Other keys fail with ErrUnsupportedKey.
func SigningAlgorithm(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		switch {
		case k == nil || k.N == nil:
			return "", fmt.Errorf("%w: empty RSA key", ErrUnsupportedKey)
		case k.N.BitLen() < minRSABits:
			return "", fmt.Errorf("%w: RSA key of %d bits, want at least %d", ErrUnsupportedKey, k.N.BitLen(), minRSABits)
		}
		return "RS256", nil
	case *ecdsa.PublicKey:
		if k == nil || k.Curve == nil {
			return "", fmt.Errorf("%w: empty ECDSA key", ErrUnsupportedKey)
		}
		for _, c := range curves {
			if c.curve == k.Curve {
				return c.alg, nil
			}
		}
		return "", fmt.Errorf("%w: ECDSA curve %s", ErrUnsupportedKey, k.Curve.Params().Name)
	}
	return "", fmt.Errorf("%w: %T", ErrUnsupportedKey, pub)
}

// KeyID is the key id ("kid") of pub: the unpadded base64url SHA-256 of its
// PKIX (SubjectPublicKeyInfo) encoding. It is the thumbprint kube-apiserver
// uses, so a key shared with a kube cluster gets the same id in both.
func KeyID(pub crypto.PublicKey) (string, error) {
	if _, err := SigningAlgorithm(pub); err != nil {
		return "", err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
