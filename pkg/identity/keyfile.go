package identity

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// PEM block types read and written here.
const (
	pemPrivateKey   = "PRIVATE KEY"    // PKCS#8
	pemECPrivateKey = "EC PRIVATE KEY" // SEC 1, what `openssl ecparam -genkey` writes
	pemPublicKey    = "PUBLIC KEY"     // PKIX
)

// LoadPrivateKey reads the aggregator's signing key from a PEM file: a
// PKCS#8 "PRIVATE KEY" (or a SEC 1 "EC PRIVATE KEY") holding an ECDSA P-256
// or Ed25519 key.
func LoadPrivateKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("identity: %s: no PEM block", path)
	}
	var key any
	switch block.Type {
	case pemPrivateKey:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case pemECPrivateKey:
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("identity: %s: PEM block %q, want %q", path, block.Type, pemPrivateKey)
	}
	if err != nil {
		return nil, fmt.Errorf("identity: %s: %w", path, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("identity: %s: %w, got %T", path, errKeyType, key)
	}
	if _, err := newPublicKey(signer.Public()); err != nil {
		return nil, fmt.Errorf("identity: %s: %w", path, err)
	}
	return signer, nil
}

// LoadPublicKeys reads the aggregator's verification keys from a PEM file
// of one or more PKIX "PUBLIC KEY" blocks: during a key rotation the file
// holds the old key and the new one.
func LoadPublicKeys(path string) ([]crypto.PublicKey, error) {
	rest, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	var keys []crypto.PublicKey
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != pemPublicKey {
			// Most likely a private key in the wrong file: refuse loudly.
			return nil, fmt.Errorf("identity: %s: PEM block %q, want %q", path, block.Type, pemPublicKey)
		}
		key, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("identity: %s: %w", path, err)
		}
		if _, err := newPublicKey(key); err != nil {
			return nil, fmt.Errorf("identity: %s: %w", path, err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("identity: %s: no %q PEM block", path, pemPublicKey)
	}
	return keys, nil
}

// GenerateKeyFiles writes a new Ed25519 key pair for development (make
// run), Ed25519 because it signs and verifies faster than P-256 and this
// is on every request's path: the PKCS#8 private key to privPath with mode 0600 and the PKIX
// public key to pubPath with mode 0644. It never overwrites: if either file
// exists the error wraps fs.ErrExist, and a caller that wants "generate
// once" loads the existing files instead.
func GenerateKeyFiles(privPath, pubPath string) error {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	if _, err := os.Stat(pubPath); err == nil {
		return fmt.Errorf("identity: %s: %w", pubPath, os.ErrExist)
	}
	if err := writePEM(privPath, pemPrivateKey, privDER, 0o600); err != nil {
		return err
	}
	if err := writePEM(pubPath, pemPublicKey, pubDER, 0o644); err != nil {
		// A private key without its public half is of no use; do not leave
		// it behind to block the next attempt.
		return errors.Join(err, os.Remove(privPath))
	}
	return nil
}

// writePEM creates path (failing if it exists) with exactly mode perm,
// whatever the umask.
func writePEM(path, typ string, der []byte, perm os.FileMode) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("identity: %w", cerr)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	if err := pem.Encode(f, &pem.Block{Type: typ, Bytes: der}); err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	return nil
}
