package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/serve"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// backend is an upstream that trusts only the aggregator's assertions for
// its audience and answers with the user they name.
func backend(t *testing.T, dir, audience string, extra http.Handler) *httptest.Server {
	t.Helper()
	keys, err := identity.LoadPublicKeys(filepath.Join(dir, IdentityPublicKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	v, err := identity.NewVerifier(identity.VerifierConfig{Keys: keys, Issuer: DefaultIdentityIssuer, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	whoami := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Remote-User") != "" {
			http.Error(w, "client credentials reached the backend", http.StatusTeapot)
			return
		}
		_ = json.NewEncoder(w).Encode(u)
	})
	if extra == nil {
		extra = whoami
	}
	mux.Handle("/", identity.Require(v)(extra))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// startInProcess starts an aggregator whose identity key is generated
// under dir before the backends are built from its public half.
func startInProcess(t *testing.T, dir string, cfg func(*Config)) *Server {
	t.Helper()
	c := Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, CertDir: dir}
	cfg(&c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// prepareKey generates the identity key ahead of Start, so that the
// backends can be given its public half.
func prepareKey(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "certs")
	if _, err := newSigner(Config{CertDir: dir, IdentityIssuer: DefaultIdentityIssuer}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func httpsClient(t *testing.T, dir string) *http.Client {
	t.Helper()
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true,
	}}
}

func get(t *testing.T, c *http.Client, url, token string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 {
		t.Errorf("served over %s, want HTTP/2", resp.Proto)
	}
	return resp.StatusCode, string(body)
}

// The fused composition: a local token file, AlwaysDeny after masters,
// no anonymous access (Config's zero value).
func TestFusedComposition(t *testing.T) {
	dir := prepareKey(t)
	reg := backend(t, dir, registryUpstream, nil)
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admintok,admin,1,\"system:masters\"\nalicetok,alice,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, dir, func(c *Config) {
		c.Upstreams.Registry = []string{reg.URL}
		c.TokenAuthFile = tokens
		c.AuthorizationMode = []string{authz.ModeAlwaysDeny}
	})
	c := httpsClient(t, dir)
	cases := []struct {
		name, path, token string
		header            map[string]string
		code              int
		body              string
	}{
		{"admin reaches the registry as itself", "/api/v1/namespaces", "admintok", nil, 200, `"username":"admin"`},
		{"client identity headers are dropped", "/api/v1/namespaces", "admintok", map[string]string{"X-Remote-User": "root"}, 200, `"username":"admin"`},
		{"version goes to the registry", "/version", "admintok", nil, 200, `"username":"admin"`},
		{"masters may impersonate", "/api/v1/namespaces", "admintok", map[string]string{"Impersonate-User": "alice"}, 403, `User \"alice\" cannot list`},
		{"others are denied", "/api/v1/namespaces", "alicetok", nil, 403, `User \"alice\" cannot list`},
		{"bad token", "/api/v1/namespaces", "nope", nil, 401, "Unauthorized"},
		{"no anonymous by default", "/api/v1/namespaces", "", nil, 401, "Unauthorized"},
		{"unknown path", "/nowhere", "admintok", nil, 404, "NotFound"},
		// The other checks need a registry that is one (health_test.go).
		{"healthz needs nothing", "/healthz/ping", "", nil, 200, "ok"},
		{"readyz has a check per upstream", "/readyz/upstream-registry", "", nil, 200, "ok"},
	}
	for _, tc := range cases {
		code, body := get(t, c, s.URL()+tc.path, tc.token, tc.header)
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %s, want %d containing %s", tc.name, code, body, tc.code, tc.body)
		}
	}
}

// The split composition: tokens checked by the authn upstream, decisions
// made by the authz upstream, both asked as the aggregator itself.
func TestSplitComposition(t *testing.T) {
	dir := prepareKey(t)
	reg := backend(t, dir, registryUpstream, nil)
	var reviews atomic.Int32
	stopStreams := make(chan struct{})
	authnSrv := backend(t, dir, authnUpstream, withRevisions(authn.NewTokenReviewHandler(authn.AuthenticatorFunc(
		func(_ context.Context, token string) (*authn.Response, bool, error) {
			reviews.Add(1)
			if token != "caroltok" {
				return nil, false, nil
			}
			return &authn.Response{User: authenticationv1.UserInfo{Username: "carol"}}, true, nil
		})), nil, stopStreams))
	authzSrv := backend(t, dir, authzUpstream, withRevisions(authz.NewSubjectAccessReviewHandler(authz.AuthorizerFunc(
		func(_ context.Context, a authz.Attributes) (authz.Result, error) {
			if a.User.Username == "carol" && a.Resource == "namespaces" {
				return authz.Result{Decision: authz.DecisionAllow}, nil
			}
			return authz.Result{Decision: authz.DecisionDeny}, nil
		})), nil, stopStreams))
	s := startInProcess(t, dir, func(c *Config) {
		c.Upstreams = UpstreamURLs{Registry: []string{reg.URL}, Authn: []string{authnSrv.URL}, Authz: []string{authzSrv.URL}}
		c.AuthorizationMode = []string{authz.ModeWebhook}
	})
	// Answers are cached only while the stages' revision streams are live.
	awaitTrusted(t, s)
	c := httpsClient(t, dir)
	if code, body := get(t, c, s.URL()+"/api/v1/namespaces", "caroltok", nil); code != 200 || !strings.Contains(body, `"username":"carol"`) {
		t.Errorf("carol listing namespaces: %d %s", code, body)
	}
	if code, body := get(t, c, s.URL()+"/api/v1/secrets", "caroltok", nil); code != 403 {
		t.Errorf("carol listing secrets: %d %s, want 403", code, body)
	}
	if code, _ := get(t, c, s.URL()+"/api/v1/namespaces", "caroltok", nil); code != 200 || reviews.Load() != 1 {
		t.Errorf("second request: %d after %d token reviews, want 200 from the cache after 1", code, reviews.Load())
	}
	close(stopStreams)
	authzSrv.Close()
	if code, body := get(t, c, s.URL()+"/api/v1/configmaps", "caroltok", nil); code != 503 {
		t.Errorf("with authz down: %d %s, want 503", code, body)
	}
}
