package aggregator

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// The generated certificate must verify for the loopback names against
// the CA written for kubeconfigs, and survive a restart unchanged so that
// kubeconfigs written before it keep working.
func TestGeneratedServingCertificate(t *testing.T) {
	cfg := Config{CertDir: filepath.Join(t.TempDir(), "certs")}
	first, err := servingCertificate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(filepath.Join(cfg.CertDir, CAFile))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	leaf, err := x509.ParseCertificate(first.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "localhost", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("certificate does not verify for %s: %v", name, err)
		}
	}
	again, err := servingCertificate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Certificate[0], again.Certificate[0]) {
		t.Error("a second start generated a new certificate instead of reusing the first")
	}
}

func TestIdentityKeyIsGeneratedOnce(t *testing.T) {
	cfg := Config{CertDir: filepath.Join(t.TempDir(), "certs"), IdentityIssuer: DefaultIdentityIssuer}
	if _, err := newSigner(cfg); err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(filepath.Join(cfg.CertDir, IdentityPublicKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newSigner(cfg); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(cfg.CertDir, IdentityPublicKeyFile)); !bytes.Equal(pub, again) {
		t.Error("the identity key changed on a second start")
	}
	cfg.IdentityKeyFile = filepath.Join(t.TempDir(), "missing.key")
	if _, err := newSigner(cfg); err == nil {
		t.Error("a configured identity key file that is missing was accepted")
	}
}
