package serviceaccount

import (
	"crypto"

	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// keyAlgorithm is how one key signs: its JWS algorithm name, the digest it
// signs, and (for ECDSA) the byte length of r and of s.
type keyAlgorithm struct {
	alg       string
	hash      crypto.Hash
	coordSize int
}

// signingAlgorithms are the algorithms oidc.SigningAlgorithm picks.
var signingAlgorithms = map[string]keyAlgorithm{
	"RS256": {alg: "RS256", hash: crypto.SHA256},
	"ES256": {alg: "ES256", hash: crypto.SHA256, coordSize: 32},
	"ES384": {alg: "ES384", hash: crypto.SHA384, coordSize: 48},
	"ES512": {alg: "ES512", hash: crypto.SHA512, coordSize: 66},
}

// algorithmFor is how pub's private half signs.
func algorithmFor(pub crypto.PublicKey) (keyAlgorithm, error) {
	alg, err := oidc.SigningAlgorithm(pub)
	if err != nil {
		return keyAlgorithm{}, err
	}
	return signingAlgorithms[alg], nil
}
