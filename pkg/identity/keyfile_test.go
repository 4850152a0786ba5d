package identity

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateAndLoadKeyFiles(t *testing.T) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "id.key"), filepath.Join(dir, "id.pub")
	if err := GenerateKeyFiles(priv, pub); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]fs.FileMode{priv: 0o600, pub: 0o644} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, %v; want %v", filepath.Base(path), fi.Mode().Perm(), err, mode)
		}
	}
	key, err := LoadPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := LoadPublicKeys(pub)
	if err != nil {
		t.Fatal(err)
	}
	token := sign(t, newSigner(t, key, testIssuer), testAudience, httpRequest("GET", "/api"))
	if _, err := newVerifier(t, t0, keys...).Verify(token, httpRequest("GET", "/api")); err != nil {
		t.Fatalf("loaded keys do not verify: %v", err)
	}

	if err := GenerateKeyFiles(priv, filepath.Join(dir, "other.pub")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("overwrote a private key: %v", err)
	}
	if err := GenerateKeyFiles(filepath.Join(dir, "other.key"), pub); !errors.Is(err, fs.ErrExist) {
		t.Errorf("overwrote a public key: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.key")); err == nil {
		t.Error("left a private key without its public half")
	}
}

func TestLoadSeveralPublicKeys(t *testing.T) {
	a, b := newECKey(t), newEdKey(t)
	path := filepath.Join(t.TempDir(), "keys.pub")
	writeFile(t, path, append(publicPEM(t, a.Public()), publicPEM(t, b.Public())...))
	keys, err := LoadPublicKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, t0, keys...)
	for _, key := range []crypto.Signer{a, b} {
		token := sign(t, newSigner(t, key, testIssuer), testAudience, httpRequest("GET", "/api"))
		if _, err := v.Verify(token, httpRequest("GET", "/api")); err != nil {
			t.Errorf("%T: %v", key, err)
		}
	}
}

func TestLoadPrivateKeyFormats(t *testing.T) {
	ec, ed := newECKey(t), newEdKey(t)
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"pkcs8-ed25519": pkcs8PEM(t, ed),
		"sec1-p256":     pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}),
	} {
		path := filepath.Join(dir, name)
		writeFile(t, path, data)
		if _, err := LoadPrivateKey(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestLoadKeyFilesRejects(t *testing.T) {
	dir := t.TempDir()
	privAsPub := filepath.Join(dir, "priv-as-pub")
	writeFile(t, privAsPub, append(publicPEM(t, newECKey(t).Public()), pkcs8PEM(t, newEdKey(t))...))
	if _, err := LoadPublicKeys(privAsPub); err == nil {
		t.Error("LoadPublicKeys accepted a private key")
	}
	pubAsPriv := filepath.Join(dir, "pub-as-priv")
	writeFile(t, pubAsPriv, publicPEM(t, newECKey(t).Public()))
	if _, err := LoadPrivateKey(pubAsPriv); err == nil {
		t.Error("LoadPrivateKey accepted a public key")
	}
	empty := filepath.Join(dir, "empty")
	writeFile(t, empty, []byte("no pem here\n"))
	if _, err := LoadPublicKeys(empty); err == nil {
		t.Error("LoadPublicKeys accepted a file without keys")
	}
	if _, err := LoadPrivateKey(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func pkcs8PEM(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
