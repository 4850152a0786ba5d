package aggregator

import (
	"context"
	"crypto/tls"
	"errors"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// withClientCert is c presenting cert.
func withClientCert(c *http.Client, cert tls.Certificate) *http.Client {
	tr := c.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = []tls.Certificate{cert}
	return &http.Client{Timeout: c.Timeout, Transport: tr}
}

// TestClientCertificates: a verified certificate is its CN with its O as
// groups, before any token; a certificate without CN leaves it to the
// token; one from another CA, or not for client auth, is refused.
func TestClientCertificates(t *testing.T) {
	dir := prepareKey(t)
	reg := backend(t, dir, registryUpstream, nil)
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admintok,admin,1,\"system:masters\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := testpki.New(t, "client-ca")
	s := startInProcess(t, dir, func(c *Config) {
		c.Upstreams.Registry = []string{reg.URL}
		c.TokenAuthFile = tokens
		c.ClientCAFile = ca.File(t)
		c.AuthorizationMode = []string{authz.ModeAlwaysAllow}
	})
	plain := httpsClient(t, dir)
	alice := withClientCert(plain, ca.ClientCert(t, "alice", "team-a", "team-b"))
	noCN := withClientCert(plain, ca.ClientCert(t, "", "team-a"))
	url := s.URL() + "/api/v1/namespaces"
	cases := []struct {
		name   string
		c      *http.Client
		token  string
		header map[string]string
		code   int
		substr string
	}{
		{"certificate user", alice, "", nil, 200, `"username":"alice","groups":["team-a","team-b","system:authenticated"]`},
		{"certificate before token", alice, "admintok", nil, 200, `"username":"alice"`},
		{"certificate before a bad token", alice, "nope", nil, 200, `"username":"alice"`},
		{"no common name: the token decides", noCN, "admintok", nil, 200, `"username":"admin"`},
		{"no common name and no token", noCN, "", nil, 401, "Unauthorized"},
		{"no certificate: the token decides", plain, "admintok", nil, 200, `"username":"admin"`},
		{"nothing", plain, "", nil, 401, "Unauthorized"},
		{"the certificate user impersonates", alice, "", map[string]string{"Impersonate-User": "bob"}, 200, `"username":"bob"`},
	}
	for _, tc := range cases {
		code, body := get(t, tc.c, url, tc.token, tc.header) // get also checks HTTP/2
		if code != tc.code || !strings.Contains(body, tc.substr) {
			t.Errorf("%s: %d %s, want %d containing %s", tc.name, code, body, tc.code, tc.substr)
		}
	}
	for name, cert := range map[string]tls.Certificate{
		"another CA":      testpki.New(t, "another-ca").ClientCert(t, "mallory"),
		"not client auth": ca.ServingCert(t),
	} {
		// Refused either way: the server fails the handshake, or, when the
		// client finds its certificate's issuer missing from the CAs the
		// server asks for, Go's client sends none and the request is
		// unauthenticated. Never an answer for the certificate's user.
		resp, err := withClientCert(plain, cert).Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: served %d, want a failed handshake or 401", name, resp.StatusCode)
			}
		}
	}
}

// TestClientCertificatesNotRequested: without a client CA, a presented
// certificate is not even asked for, so it authenticates nobody.
func TestClientCertificatesNotRequested(t *testing.T) {
	dir := prepareKey(t)
	reg := backend(t, dir, registryUpstream, nil)
	s := startInProcess(t, dir, func(c *Config) {
		c.Upstreams.Registry = []string{reg.URL}
		c.AuthorizationMode = []string{authz.ModeAlwaysAllow}
	})
	alice := withClientCert(httpsClient(t, dir), testpki.New(t, "unknown-ca").ClientCert(t, "alice"))
	if code, body := get(t, alice, s.URL()+"/api/v1/namespaces", "", nil); code != http.StatusUnauthorized {
		t.Errorf("certificate without a client CA: %d %s, want 401", code, body)
	}
}

func TestClientCAFileInvalid(t *testing.T) {
	dir := prepareKey(t)
	junk := filepath.Join(t.TempDir(), "junk.crt")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{junk, filepath.Join(t.TempDir(), "missing.crt")} {
		_, err := Start(context.Background(), Config{
			Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, CertDir: dir, Upstreams: UpstreamURLs{Registry: []string{"http://127.0.0.1:1"}},
			AuthorizationMode: []string{authz.ModeAlwaysAllow}, ClientCAFile: file,
		})
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("client CA %s: %v, want ErrInvalidConfig", file, err)
		}
	}
}
