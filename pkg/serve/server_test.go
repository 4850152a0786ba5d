package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func hello(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.Proto) }

func TestPlainHTTP(t *testing.T) {
	s, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0"}, http.HandlerFunc(hello), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q", s.URL())
	}
	if got := get(t, http.DefaultClient, s.URL()); got != "HTTP/1.1" {
		t.Fatalf("served %q", got)
	}
}

func TestHTTPSOffersHTTP2(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	s, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0", TLSCertFile: certFile, TLSPrivateKeyFile: keyFile},
		http.HandlerFunc(hello), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %q", s.URL())
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	if got := get(t, &http.Client{Transport: tr}, s.URL()); got != "HTTP/2.0" {
		t.Fatalf("served %q, want HTTP/2.0", got)
	}
}

func TestTLSFilesGoTogether(t *testing.T) {
	certFile, _, _ := writeCert(t)
	_, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0", TLSCertFile: certFile}, http.HandlerFunc(hello), nil)
	if err == nil || !strings.Contains(err.Error(), "go together") {
		t.Fatalf("err = %v", err)
	}
}

// TestClientCAOnlyOverTLS: a client certificate is a property of a TLS
// connection, so a client CA without a serving certificate is refused
// rather than quietly serving plain HTTP.
func TestClientCAOnlyOverTLS(t *testing.T) {
	caFile, _, _ := writeCert(t)
	_, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0", ClientCAFile: caFile}, http.HandlerFunc(hello), nil)
	if err == nil || !strings.Contains(err.Error(), "--client-ca-file needs --tls-cert-file") {
		t.Fatalf("err = %v", err)
	}
}

func TestInheritedListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(context.Background(), Endpoint{Listener: ln, BindAddress: "ignored"}, http.HandlerFunc(hello), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.URL() != "http://"+ln.Addr().String() {
		t.Fatalf("URL %q, listener %s", s.URL(), ln.Addr())
	}
	get(t, http.DefaultClient, s.URL())
}

// Close lets a request in flight finish, and tells long-running handlers
// to end first.
func TestCloseIsGraceful(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "finished")
	})
	s, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0"}, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.OnShutdown(func() { close(release) })
	body := make(chan string, 1)
	go func() { body <- get(t, http.DefaultClient, s.URL()) }()
	<-started
	s.Close()
	s.Close()
	if got := <-body; got != "finished" {
		t.Fatalf("in-flight request got %q", got)
	}
	if _, err := http.Get(s.URL()); err == nil {
		t.Fatal("still serving after Close")
	}
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// writeCert writes a self-signed certificate for 127.0.0.1 and returns its
// files and a pool trusting it.
func writeCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
