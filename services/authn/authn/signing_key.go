package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// LoadSigningKey reads a service-account signing key from a PEM file, in
// the forms kube's --service-account-signing-key-file accepts: PKCS#8
// "PRIVATE KEY", PKCS#1 "RSA PRIVATE KEY" or SEC 1 "EC PRIVATE KEY". The
// serviceaccount.Issuer checks the key type and size.
func LoadSigningKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: %s: no PEM block", ErrInvalidConfig, path)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		err = fmt.Errorf("unsupported PEM block %q", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidConfig, path, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %T cannot sign", ErrInvalidConfig, path, key)
	}
	return signer, nil
}

// LoadOrGenerateSigningKey loads path, creating it first with a fresh
// ECDSA P-256 key (mode 0600) when it does not exist: the development
// default, so that `make run` needs no key management. Tokens signed with
// a generated key outlive it only as long as the file is kept.
func LoadOrGenerateSigningKey(path string) (crypto.Signer, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := generateSigningKey(path); err != nil {
			return nil, err
		}
	}
	return LoadSigningKey(path)
}

func generateSigningKey(path string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		_ = f.Close()
		return errors.Join(err, os.Remove(path))
	}
	return f.Close()
}
