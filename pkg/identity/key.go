package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// errKeyType is returned for any key other than ECDSA P-256 or Ed25519:
// those two are small, fast and have exactly one JWS algorithm each, so a
// key never leaves a choice of algorithm to the token.
var errKeyType = errors.New("identity: key must be ECDSA P-256 or Ed25519")

// publicKey is a verification key with the one algorithm it may be used
// with and its key id.
type publicKey struct {
	key    crypto.PublicKey
	method jwt.SigningMethod
	kid    string
}

// newPublicKey checks that k is a supported key and computes its algorithm
// and key id.
func newPublicKey(k crypto.PublicKey) (publicKey, error) {
	switch k := k.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return publicKey{}, fmt.Errorf("%w, got ECDSA %s", errKeyType, k.Curve.Params().Name)
		}
		point, err := k.Bytes()
		if err != nil {
			return publicKey{}, fmt.Errorf("identity: %w", err)
		}
		// point is 0x04 || X || Y, each 32 bytes for P-256.
		kid := thumbprint(`{"crv":"P-256","kty":"EC","x":"` + b64(point[1:33]) + `","y":"` + b64(point[33:]) + `"}`)
		return publicKey{key: k, method: jwt.SigningMethodES256, kid: kid}, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return publicKey{}, fmt.Errorf("%w: bad Ed25519 key length %d", errKeyType, len(k))
		}
		kid := thumbprint(`{"crv":"Ed25519","kty":"OKP","x":"` + b64(k) + `"}`)
		return publicKey{key: k, method: jwt.SigningMethodEdDSA, kid: kid}, nil
	default:
		return publicKey{}, fmt.Errorf("%w, got %T", errKeyType, k)
	}
}

// thumbprint is the RFC 7638 JWK thumbprint of a key's canonical JWK, used
// as the kid, so that a verifier holding several keys during a rotation
// picks the right one, and so that a JWKS published later names keys the
// same way.
func thumbprint(canonicalJWK string) string {
	sum := sha256.Sum256([]byte(canonicalJWK))
	return b64(sum[:])
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
