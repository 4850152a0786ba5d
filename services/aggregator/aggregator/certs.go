package aggregator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The files generated under Config.CertDir.
const (
	CAFile          = "ca.crt"
	ServingCertFile = "apiserver.crt"
	ServingKeyFile  = "apiserver.key"
)

// certValidity is long because nothing rotates generated certificates;
// deployments that need rotation give their own files.
const certValidity = 10 * 365 * 24 * time.Hour

// servingCertificate loads the configured certificate, or the one
// generated under CertDir, generating it on the first start.
func servingCertificate(cfg Config) (tls.Certificate, error) {
	if cfg.TLSCertFile != "" {
		return tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSPrivateKeyFile)
	}
	certPath := filepath.Join(cfg.CertDir, ServingCertFile)
	keyPath := filepath.Join(cfg.CertDir, ServingKeyFile)
	if exists(certPath) && exists(keyPath) {
		return tls.LoadX509KeyPair(certPath, keyPath)
	}
	if err := generateServingCert(cfg.CertDir, certPath, keyPath); err != nil {
		return tls.Certificate{}, fmt.Errorf("aggregator: generating a serving certificate: %w", err)
	}
	return tls.LoadX509KeyPair(certPath, keyPath)
}

// generateServingCert writes a new CA to dir/ca.crt and a certificate it
// signs for the loopback names, which is what a local kubeconfig dials.
func generateServingCert(dir, certPath, keyPath string) error {
	return generateSigned(dir, filepath.Join(dir, CAFile), certPath, keyPath, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kubesplit-aggregator"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	})
}

// generateSigned writes a new CA to caPath (its key is not kept: nothing
// else is ever signed with it) and a key and a certificate it signs, made
// from leaf (its subject, extended key usages and names) with the serial,
// validity and key usage every generated certificate has.
func generateSigned(dir, caPath, certPath, keyPath string, leaf *x509.Certificate) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, caCert, err := newCA()
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leaf.SerialNumber = serial()
	leaf.NotBefore = time.Now().Add(-time.Hour)
	leaf.NotAfter = time.Now().Add(certValidity)
	leaf.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	// The CA and the key first: the certificate's presence is what says
	// "generated", so a crash in between regenerates everything.
	return errors.Join(
		writePEMFile(caPath, "CERTIFICATE", caCert.Raw, 0o644),
		writePEMFile(keyPath, "PRIVATE KEY", keyDER, 0o600),
		writePEMFile(certPath, "CERTIFICATE", der, 0o644),
	)
}

// newCA returns a fresh self-signed CA.
func newCA() (*ecdsa.PrivateKey, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: fmt.Sprintf("kubesplit-aggregator-ca@%d", time.Now().Unix())},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)) // crypto/rand does not fail
	return n
}

func writePEMFile(path, typ string, der []byte, perm os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), perm)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
