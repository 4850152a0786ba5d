package aggregator

import (
	"crypto/x509"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// TestFrontProxyGeneratedOnceAndVerifiable: without proxy client files,
// a certificate for front-proxy-client, for client auth, signed by the CA
// published beside it, is generated on the first start and reused after.
func TestFrontProxyGeneratedOnceAndVerifiable(t *testing.T) {
	dir := t.TempDir()
	first, err := loadFrontProxy(Config{CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(first.cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(first.caPEM) {
		t.Fatal("the published CA holds no certificate")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the proxy client certificate does not verify against its CA for client auth: %v", err)
	}
	if leaf.Subject.CommonName != frontProxyCommonName || !slices.Equal(first.allowedNames, []string{frontProxyCommonName}) {
		t.Errorf("CN %q, allowed names %v, want %s for both", leaf.Subject.CommonName, first.allowedNames, frontProxyCommonName)
	}
	again, err := loadFrontProxy(Config{CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if string(again.cert.Certificate[0]) != string(first.cert.Certificate[0]) {
		t.Error("a second start generated a new proxy client certificate")
	}
}

// TestFrontProxyFromFlags: configured files are used as given, and a
// missing one is a configuration error rather than a generated stand-in.
func TestFrontProxyFromFlags(t *testing.T) {
	gen := t.TempDir()
	if _, err := loadFrontProxy(Config{CertDir: gen}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		ProxyClientCertFile: filepath.Join(gen, FrontProxyCertFile), ProxyClientKeyFile: filepath.Join(gen, FrontProxyKeyFile),
		RequestHeaderClientCAFile: filepath.Join(gen, FrontProxyCAFile), RequestHeaderAllowedNames: []string{"my-proxy"},
	}
	fp, err := loadFrontProxy(cfg)
	if err != nil || !slices.Equal(fp.allowedNames, []string{"my-proxy"}) {
		t.Fatalf("configured files: %v, allowed names %v", err, fp)
	}
	cfg.RequestHeaderClientCAFile = filepath.Join(gen, "missing.crt")
	if _, err := loadFrontProxy(cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("missing requestheader CA: %v, want ErrInvalidConfig", err)
	}
}
