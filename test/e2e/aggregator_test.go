package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	aggregatorAdminToken = "admin-token-0123456789"
	aggregatorUserToken  = "alice-token-0123456789"
)

// startAggregatorStack starts the registry, trusting a fresh aggregator
// key, and the aggregator in front of it with the fused composition: a
// local token file (an admin in system:masters, a user in no group) and
// AlwaysDeny after the masters.
func startAggregatorStack(t *testing.T) (*framework.Registry, *framework.Aggregator) {
	t.Helper()
	dir := t.TempDir()
	privPath, pubPath := filepath.Join(dir, "aggregator.key"), filepath.Join(dir, "aggregator.pub")
	if err := identity.GenerateKeyFiles(privPath, pubPath); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	content := aggregatorAdminToken + `,admin,uid-admin,"system:masters"` + "\n" + aggregatorUserToken + ",alice,uid-alice\n"
	if err := os.WriteFile(tokens, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := framework.StartRegistryWithIdentity(t, pubPath)
	agg := framework.StartAggregator(t,
		"--registry-url", reg.URL,
		"--identity-key-file", privPath,
		"--token-auth-file", tokens,
		"--authorization-mode", "AlwaysDeny",
	)
	return reg, agg
}

// TestAggregatorWithKubectl drives the aggregator with the real kubectl,
// over HTTPS with its generated CA, as it would drive kube-apiserver:
// masters may do anything, anyone else is denied, bad credentials get 401,
// and a registry that is down makes requests fail closed with 503.
func TestAggregatorWithKubectl(t *testing.T) {
	reg, agg := startAggregatorStack(t)
	admin := agg.Kubeconfig(t, "admin", aggregatorAdminToken)
	alice := agg.Kubeconfig(t, "alice", aggregatorUserToken)
	bad := agg.Kubeconfig(t, "bad", "not-a-known-token")
	must := func(kubeconfig, stdin string, args ...string) string {
		t.Helper()
		out, err := agg.Kubectl(t, kubeconfig, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}

	if out := must(admin, "", "get", "ns"); !strings.Contains(out, "default") {
		t.Errorf("get ns as admin lists no default namespace:\n%s", out)
	}
	must(admin, "", "create", "configmap", "through-aggregator", "--from-literal=k=v")
	if out := must(admin, "", "get", "configmap", "through-aggregator", "-o", "jsonpath={.data.k}"); out != "v" {
		t.Errorf("configmap data = %q, want v", out)
	}
	if out := must(admin, "", "api-resources"); !strings.Contains(out, "configmaps") {
		t.Errorf("api-resources lists no configmaps:\n%s", out)
	}

	denied := []struct {
		name, kubeconfig, want string
		args                   []string
	}{
		{"user without groups", alice, `User "alice" cannot list`, []string{"get", "ns"}},
		{"bad token", bad, "Unauthorized", []string{"get", "ns"}},
		{"user impersonating admin", alice, `User "alice" cannot impersonate resource "users"`, []string{"get", "ns", "--as", "admin", "--as-group", "system:masters"}},
		{"admin impersonating a user", admin, `User "alice" cannot list`, []string{"get", "ns", "--as", "alice"}},
	}
	for _, c := range denied {
		out, err := agg.Kubectl(t, c.kubeconfig, "", c.args...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%s: kubectl %s = %v, want an error containing %q:\n%s", c.name, strings.Join(c.args, " "), err, c.want, out)
		}
	}

	client := aggregatorClient(t, agg)
	statusCases := []struct {
		name, token string
		want        int
		body        string
	}{
		{"user without groups", aggregatorUserToken, http.StatusForbidden, `User \"alice\" cannot list resource \"namespaces\"`},
		{"bad token", "not-a-known-token", http.StatusUnauthorized, `"reason":"Unauthorized"`},
		// kubectl cannot send a request without credentials (it prompts
		// for a user name instead), so anonymous is checked here only.
		{"anonymous", "", http.StatusForbidden, `User \"system:anonymous\" cannot list`},
	}
	for _, c := range statusCases {
		code, _, body := aggregatorGet(t, client, agg.URL+"/api/v1/namespaces", c.token)
		if code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %s, want %d containing %s", c.name, code, body, c.want, c.body)
		}
	}
	if code, _, body := aggregatorGet(t, client, agg.URL+"/readyz", ""); code != http.StatusOK {
		t.Errorf("readyz without credentials = %d %s, want 200", code, body)
	}

	// Fail closed: with the registry gone, a request is never served by
	// anyone else; it gets 503 with Retry-After, since it reached nothing.
	reg.Stop(t)
	code, header, body := aggregatorGet(t, client, agg.URL+"/api/v1/namespaces", aggregatorAdminToken)
	if code != http.StatusServiceUnavailable || header.Get("Retry-After") == "" {
		t.Errorf("with the registry down: %d (Retry-After %q) %s, want 503 with Retry-After", code, header.Get("Retry-After"), body)
	}
	if code, _, body := aggregatorGet(t, client, agg.URL+"/readyz?verbose", ""); code == http.StatusOK || !strings.Contains(body, "upstream-registry") {
		// The health check may not have run yet; the failed request above
		// took the endpoint out already, so readiness reflects it.
		t.Errorf("readyz with the registry down = %d %s, want a failing upstream-registry check", code, body)
	}
}

// aggregatorClient trusts the aggregator's generated CA, over HTTP/2 as
// kubectl speaks it.
func aggregatorClient(t *testing.T, agg *framework.Aggregator) *http.Client {
	t.Helper()
	caPEM, err := os.ReadFile(agg.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in the aggregator's CA file")
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	return &http.Client{Transport: transport, Timeout: 10 * time.Second}
}

// aggregatorGet sends a GET with token (none when empty) and checks that it
// travelled over HTTP/2.
func aggregatorGet(t *testing.T, c *http.Client, url, token string) (int, http.Header, string) {
	t.Helper()
	resp, body := httpGet(t, c, url, token)
	if resp.ProtoMajor != 2 {
		t.Errorf("GET %s over %s, want HTTP/2", url, resp.Proto)
	}
	return resp.StatusCode, resp.Header, body
}

// httpGet sends a GET with token (none when empty) and reads the answer.
func httpGet(t *testing.T, c *http.Client, url, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}
