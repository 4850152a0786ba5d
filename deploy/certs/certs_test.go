package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// TestRun: one run writes a set every service can load, certificates that
// verify for the names compose and Kubernetes reach the services by, and a
// second run leaves the set as it is (a restarted init step must not
// change the credentials services already trust).
func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	o := options{dir: dir, namespace: "ns1", internalURL: "https://aggregator:6443", publicURL: "https://api.example.com:6443",
		publicNames: names{"api.example.com"}}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	caPEM := read(t, dir, "ca.crt")
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	reachedAs := map[string][]string{
		"aggregator": {"aggregator", "aggregator.ns1.svc", "api.example.com", "127.0.0.1"},
		"registry":   {"registry", "registry.ns1.svc.cluster.local", "localhost"},
		"admission":  {"admission", "admission.ns1.svc"},
		"etcd":       {"etcd2", "etcd-1.etcd.ns1.svc", "etcd-0.etcd"},
	}
	for svc, hosts := range reachedAs {
		pair, err := tls.X509KeyPair(read(t, dir, svc+".crt"), read(t, dir, svc+".key"))
		if err != nil {
			t.Fatalf("%s: %v", svc, err)
		}
		leaf, _ := x509.ParseCertificate(pair.Certificate[0])
		for _, h := range hosts {
			if _, err := leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				t.Errorf("%s's certificate for %s: %v", svc, h, err)
			}
		}
	}
	for _, pair := range [][2]string{{"identity.key", "identity.pub"}, {"registry-admission.key", "registry-admission.pub"}} {
		if _, err := identity.LoadPrivateKey(filepath.Join(dir, pair[0])); err != nil {
			t.Error(err)
		}
		if _, err := identity.LoadPublicKeys(filepath.Join(dir, pair[1])); err != nil {
			t.Error(err)
		}
	}
	tokens := string(read(t, dir, "tokens.csv"))
	if !strings.Contains(tokens, ",admin,") {
		t.Error("tokens.csv has no admin")
	}
	// Every backend's kubeconfig carries a token tokens.csv lets in as the
	// service's own user in system:masters.
	for _, svc := range []string{"registry", "authn", "authz", "admission"} {
		kc := string(read(t, dir, svc+".kubeconfig"))
		if !strings.Contains(kc, "server: https://aggregator:6443") || !strings.Contains(kc, "certificate-authority: ca.crt") {
			t.Errorf("%s.kubeconfig does not reach the aggregator's internal URL trusting ca.crt:\n%s", svc, kc)
		}
		tok := tokenOf(t, kc)
		if want := fmt.Sprintf("%s,system:kubesplit:%s,%s,\"system:masters\"\n", tok, svc, svc); !strings.Contains(tokens, want) {
			t.Errorf("tokens.csv has no line %q for %s.kubeconfig's token", want, svc)
		}
	}
	if kc := string(read(t, dir, "admin.kubeconfig")); !strings.Contains(kc, "server: https://api.example.com:6443") {
		t.Errorf("admin.kubeconfig:\n%s", kc)
	}
	if info, err := os.Stat(filepath.Join(dir, "sa.key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("sa.key: %v %v, want mode 0600", info, err)
	}
	if !samePublicKey(t, read(t, dir, "sa.key"), read(t, dir, "sa.pub")) {
		t.Error("sa.pub is not the public half of sa.key")
	}

	if err := run(o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, dir, "ca.crt"), caPEM) || !strings.Contains(string(read(t, dir, "tokens.csv")), tokens) {
		t.Error("a second run changed the set")
	}
	// A set an older kubesplit-certs wrote, without the registry's
	// kubeconfig, is written anew, from one new CA.
	if err := os.Remove(filepath.Join(dir, "registry.kubeconfig")); err != nil {
		t.Fatal(err)
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(read(t, dir, "ca.crt"), caPEM) {
		t.Error("an incomplete set was kept")
	}
	kc := string(read(t, dir, "registry.kubeconfig"))
	if !strings.Contains(string(read(t, dir, "tokens.csv")), tokenOf(t, kc)+",system:kubesplit:registry,") {
		t.Error("the rewritten registry.kubeconfig's token is not in the rewritten tokens.csv")
	}
}

// tokenOf is the bearer token of a kubeconfig kubeconfig() wrote.
func tokenOf(t *testing.T, kc string) string {
	t.Helper()
	for line := range strings.Lines(kc) {
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "token: "); ok {
			return tok
		}
	}
	t.Fatalf("no token in\n%s", kc)
	return ""
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSecretsArePrivate: every file holding a secret (private keys,
// tokens, kubeconfigs carrying tokens) is readable by its owner alone,
// and a directory others could write to (and so swap a key or the CA)
// loses that before anything is written into it.
func TestSecretsArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := run(options{dir: dir, namespace: "ns1", internalURL: "https://aggregator:6443", publicURL: "https://127.0.0.1:6443"}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		t.Errorf("the directory has mode %v, want nobody but its owner writing to it", perm)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		public := strings.HasSuffix(e.Name(), ".crt") || strings.HasSuffix(e.Name(), ".pub")
		if perm := info.Mode().Perm(); public && perm != 0o644 || !public && perm != 0o600 {
			t.Errorf("%s has mode %v, want %v", e.Name(), perm, map[bool]os.FileMode{true: 0o644, false: 0o600}[public])
		}
	}
}

// samePublicKey reports whether pub (PEM, PKIX) is the public half of
// priv (PEM, PKCS #8), as kube-apiserver's --service-account-key-file
// reads it.
func samePublicKey(t *testing.T, priv, pub []byte) bool {
	t.Helper()
	pb, _ := pem.Decode(priv)
	ub, _ := pem.Decode(pub)
	if pb == nil || ub == nil || ub.Type != "PUBLIC KEY" {
		t.Fatalf("sa.key or sa.pub is not PEM, or sa.pub is not a PUBLIC KEY")
	}
	key, err := x509.ParsePKCS8PrivateKey(pb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.ParsePKIXPublicKey(ub.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key.(*ecdsa.PrivateKey).PublicKey.Equal(pk)
}
