package serviceaccount

import (
	"crypto"
	"crypto/rand"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
)

// signJWS signs a JWS signing input (header.payload) with key and returns
// the compact token. It takes any crypto.Signer rather than a private key,
// so the key may live in an HSM or a KMS as kube's external signer allows.
func signJWS(key crypto.Signer, ka keyAlgorithm, input string) (string, error) {
	h := ka.hash.New()
	h.Write([]byte(input))
	// For RSA keys a bare crypto.Hash as options selects PKCS #1 v1.5,
	// which is what RS256 is.
	sig, err := key.Sign(rand.Reader, h.Sum(nil), ka.hash)
	if err != nil {
		return "", fmt.Errorf("serviceaccount: signing token: %w", err)
	}
	if ka.coordSize > 0 {
		if sig, err = ecdsaRawSignature(sig, ka.coordSize); err != nil {
			return "", err
		}
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// ecdsaRawSignature turns the ASN.1 signature crypto.Signer returns into
// the fixed-size r||s form JWS requires (RFC 7518, section 3.4).
func ecdsaRawSignature(der []byte, size int) ([]byte, error) {
	var rs struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(der, &rs)
	switch {
	case err != nil:
		return nil, fmt.Errorf("serviceaccount: ECDSA signature: %w", err)
	case len(rest) > 0 || rs.R == nil || rs.S == nil || rs.R.Sign() <= 0 || rs.S.Sign() <= 0:
		return nil, errors.New("serviceaccount: ECDSA signature: malformed")
	case len(rs.R.Bytes()) > size || len(rs.S.Bytes()) > size:
		return nil, errors.New("serviceaccount: ECDSA signature: too long for the curve")
	}
	out := make([]byte, 2*size)
	rs.R.FillBytes(out[:size])
	rs.S.FillBytes(out[size:])
	return out, nil
}
