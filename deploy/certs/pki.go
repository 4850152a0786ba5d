package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

// validity is long because nothing here rotates certificates: a
// deployment that needs rotation brings its own (cert-manager, a PKI).
const validity = 5 * 365 * 24 * time.Hour

// authority is a CA that signs certificates.
type authority struct {
	cert            *x509.Certificate
	key             *ecdsa.PrivateKey
	certPEM, keyPEM []byte
}

func newCA(name string) (*authority, error) {
	key, keyPEM, err := newKey()
	if err != nil {
		return nil, err
	}
	tmpl, err := template(name)
	if err != nil {
		return nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, certPEM: certPEM(der), keyPEM: keyPEM}, nil
}

// issue signs a certificate for cn valid for the given DNS names and IP
// addresses, as a server and as a client (etcd members are both to each
// other; the registry shows its certificate to etcd).
func (ca *authority) issue(cn string, org []string, hosts []string) (certPEMBytes, keyPEM []byte, err error) {
	key, keyPEM, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	tmpl, err := template(cn)
	if err != nil {
		return nil, nil, err
	}
	tmpl.Subject.Organization = org
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM(der), keyPEM, nil
}

func template(cn string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(validity),
	}, nil
}

// newKey makes a P-256 key and its PKCS#8 PEM, which every consumer here
// (Go's TLS, etcd, authn's signing key loader) reads.
func newKey() (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
