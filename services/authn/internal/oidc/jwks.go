package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
)

// JSONWebKey is one public key of a JSON Web Key Set (RFC 7517), with the
// members kube publishes for its service-account keys.
type JSONWebKey struct {
	// KeyType is "RSA" or "EC".
	KeyType string `json:"kty"`
	// Use is "sig": the key verifies signatures.
	Use string `json:"use,omitempty"`
	// KeyID is the id tokens name in their "kid" header (see KeyID).
	KeyID string `json:"kid,omitempty"`
	// Algorithm is the JWS algorithm the key signs with.
	Algorithm string `json:"alg,omitempty"`
	// N and E are an RSA key's modulus and exponent, unpadded base64url.
	N string `json:"n,omitempty"`
	E string `json:"e,omitempty"`
	// Curve, X and Y are an EC key's curve ("P-256" …) and coordinates.
	Curve string `json:"crv,omitempty"`
	X     string `json:"x,omitempty"`
	Y     string `json:"y,omitempty"`
}

// JSONWebKeySet is a JSON Web Key Set, what /openid/v1/jwks serves.
type JSONWebKeySet struct {
	// Keys are the keys, in the order given.
	Keys []JSONWebKey `json:"keys"`
}

// NewJSONWebKeySet publishes keys, each with its key id and algorithm; a key
// given twice is listed once.
func NewJSONWebKeySet(keys []crypto.PublicKey) (*JSONWebKeySet, error) {
	set := &JSONWebKeySet{Keys: []JSONWebKey{}}
	for _, pub := range keys {
		jwk, err := newJSONWebKey(pub)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(set.Keys, func(k JSONWebKey) bool { return k.KeyID == jwk.KeyID }) {
			set.Keys = append(set.Keys, jwk)
		}
	}
	return set, nil
}

// newJSONWebKey encodes one public key.
func newJSONWebKey(pub crypto.PublicKey) (JSONWebKey, error) {
	alg, err := SigningAlgorithm(pub)
	if err != nil {
		return JSONWebKey{}, err
	}
	kid, err := KeyID(pub)
	if err != nil {
		return JSONWebKey{}, err
	}
	jwk := JSONWebKey{Use: "sig", KeyID: kid, Algorithm: alg}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		jwk.KeyType = "RSA"
		jwk.N = b64(k.N.Bytes())
		jwk.E = b64(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PublicKey:
		point, err := k.Bytes()
		if err != nil {
			return JSONWebKey{}, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
		}
		// An uncompressed point is 0x04 || X || Y, each of the curve's size.
		size := coordinateSize(k.Curve)
		jwk.KeyType, jwk.Curve = "EC", k.Curve.Params().Name
		jwk.X, jwk.Y = b64(point[1:1+size]), b64(point[1+size:])
	}
	return jwk, nil
}

// ParseJSONWebKeySet reads a JSON Web Key Set.
func ParseJSONWebKeySet(data []byte) (*JSONWebKeySet, error) {
	var set JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJWKS, err)
	}
	return &set, nil
}

// PublicKey decodes the key. Key types and curves kube does not sign with
// fail with ErrUnsupportedKey, so that a caller reading another party's set
// can skip them; malformed members fail with ErrInvalidJWKS.
func (k JSONWebKey) PublicKey() (crypto.PublicKey, error) {
	switch k.KeyType {
	case "RSA":
		return k.rsaKey()
	case "EC":
		return k.ecKey()
	}
	return nil, fmt.Errorf("%w: key type %q", ErrUnsupportedKey, k.KeyType)
}

// rsaKey decodes an RSA key.
func (k JSONWebKey) rsaKey() (crypto.PublicKey, error) {
	n, errN := unb64(k.N)
	e, errE := unb64(k.E)
	if errN != nil || errE != nil || len(n) == 0 || len(e) == 0 || len(e) > 4 {
		return nil, fmt.Errorf("%w: RSA key %q: bad n or e", ErrInvalidJWKS, k.KeyID)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	if _, err := SigningAlgorithm(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// ecKey decodes an EC key, checking that the point is on the curve.
func (k JSONWebKey) ecKey() (crypto.PublicKey, error) {
	var curve elliptic.Curve
	for _, c := range curves {
		if c.name == k.Curve {
			curve = c.curve
		}
	}
	if curve == nil {
		return nil, fmt.Errorf("%w: curve %q", ErrUnsupportedKey, k.Curve)
	}
	size := coordinateSize(curve)
	x, errX := unb64(k.X)
	y, errY := unb64(k.Y)
	if errX != nil || errY != nil || len(x) != size || len(y) != size {
		return nil, fmt.Errorf("%w: EC key %q: bad x or y", ErrInvalidJWKS, k.KeyID)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, slices.Concat([]byte{4}, x, y))
	if err != nil {
		return nil, fmt.Errorf("%w: EC key %q: %w", ErrInvalidJWKS, k.KeyID, err)
	}
	return pub, nil
}

// coordinateSize is the byte length of a coordinate on curve.
func coordinateSize(curve elliptic.Curve) int { return (curve.Params().BitSize + 7) / 8 }

// b64 is unpadded base64url, as JOSE writes binary members.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// unb64 reads unpadded base64url.
func unb64(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
