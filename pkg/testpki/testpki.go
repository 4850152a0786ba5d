// Package testpki is a certificate authority for tests: client
// certificates as a cluster's client CA issues them (CN the user, O the
// groups), and serving certificates for loopback, each valid for the hour
// around now. One place for what tests of several modules need.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA signs certificates for a test: client certificates, as a cluster's
// client CA does, and serving certificates for loopback, as a deploy's CA
// does for the hops between services.
type CA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
}

// New makes a CA named name, valid for an hour.
func New(t testing.TB, name string) *CA {
	t.Helper()
	key := NewKey(t)
	tmpl := template(name)
	tmpl.KeyUsage, tmpl.BasicConstraintsValid, tmpl.IsCA = x509.KeyUsageCertSign, true, true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{key: key, cert: cert}
}

// File writes the CA's certificate as PEM and returns its path.
func (ca *CA) File(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.crt")
	writeFile(t, path, ca.PEM())
	return path
}

// Cert is the CA's own certificate.
func (ca *CA) Cert() *x509.Certificate { return ca.cert }

// Pool is a pool holding only the CA, to verify what it issued.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// ClientCert is Issue as a tls.Certificate, for a test's client.
func (ca *CA) ClientCert(t testing.TB, user string, groups ...string) tls.Certificate {
	t.Helper()
	certPEM, keyPEM := ca.Issue(t, user, groups...)
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue signs a client certificate for user in groups, and returns it and
// its key as PEM, as a kubeconfig carries them.
func (ca *CA) Issue(t testing.TB, user string, groups ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	tmpl := template(user)
	tmpl.Subject.Organization = groups
	tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return ca.sign(t, tmpl)
}

// PEM is the CA's certificate as PEM, as a caBundle carries it.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
}

// ServingCert is a serving certificate for 127.0.0.1 and localhost, for a
// test's TLS server.
func (ca *CA) ServingCert(t testing.TB) tls.Certificate {
	t.Helper()
	certPEM, keyPEM := ca.servingPEM(t)
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (ca *CA) servingPEM(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	tmpl := template("127.0.0.1")
	tmpl.IPAddresses, tmpl.DNSNames = []net.IP{net.IPv4(127, 0, 0, 1)}, []string{"localhost"}
	tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return ca.sign(t, tmpl)
}

// Serving writes a serving certificate for 127.0.0.1 and localhost and its
// key, and returns their paths.
func (ca *CA) Serving(t testing.TB) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM := ca.servingPEM(t)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writeFile(t, certFile, certPEM)
	writeFile(t, keyFile, keyPEM)
	return certFile, keyFile
}

// sign issues tmpl with a new key.
func (ca *CA) sign(t testing.TB, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
	t.Helper()
	key := NewKey(t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// template is a certificate for name valid for the hour around now.
func template(name string) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
}

// NewKey is a new P-256 key.
func NewKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
