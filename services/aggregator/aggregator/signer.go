package aggregator

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// The identity key files generated under Config.CertDir.
const (
	IdentityKeyFile       = "identity.key"
	IdentityPublicKeyFile = "identity.pub"
)

// newSigner loads the aggregator's identity key, generating it under
// CertDir when no file is configured and none was generated before. A
// configured file that is missing is an error: a fresh key there would
// silently lock the aggregator out of upstreams that trust the old one.
func newSigner(cfg Config) (*identity.Signer, error) {
	path := cfg.IdentityKeyFile
	if path == "" {
		path = filepath.Join(cfg.CertDir, IdentityKeyFile)
		if !exists(path) {
			if err := os.MkdirAll(cfg.CertDir, 0o700); err != nil {
				return nil, err
			}
			if err := identity.GenerateKeyFiles(path, filepath.Join(cfg.CertDir, IdentityPublicKeyFile)); err != nil {
				return nil, fmt.Errorf("aggregator: generating the identity key: %w", err)
			}
		}
	}
	key, err := identity.LoadPrivateKey(path)
	if err != nil {
		return nil, fmt.Errorf("%w: identity key: %w", ErrInvalidConfig, err)
	}
	return identity.NewSigner(identity.SignerConfig{Key: key, Issuer: cfg.IdentityIssuer})
}
