package e2e

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// TestRegistryRequiresIdentity runs the registry as it runs behind the
// aggregator: a request without the aggregator's signed assertion, with a
// forged one, or with a forged X-Remote-User gets 401, and a signed one is
// served as the user it names. Health checks need nothing.
func TestRegistryRequiresIdentity(t *testing.T) {
	dir := t.TempDir()
	privPath, pubPath := filepath.Join(dir, "aggregator.key"), filepath.Join(dir, "aggregator.pub")
	if err := identity.GenerateKeyFiles(privPath, pubPath); err != nil {
		t.Fatal(err)
	}
	r := framework.StartRegistryWithIdentity(t, pubPath)
	aggregator := signerFromFile(t, privPath)
	admin := authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}

	if err := identity.GenerateKeyFiles(filepath.Join(dir, "other.key"), filepath.Join(dir, "other.pub")); err != nil {
		t.Fatal(err)
	}
	forger := signerFromFile(t, filepath.Join(dir, "other.key"))

	cases := []struct {
		name   string
		path   string
		header map[string]string
		signer *identity.Signer
		want   int
	}{
		{"no assertion", "/api/v1/namespaces", nil, nil, http.StatusUnauthorized},
		{"forged X-Remote-User", "/api/v1/namespaces", map[string]string{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"}, nil, http.StatusUnauthorized},
		{"assertion signed by another key", "/api/v1/namespaces", nil, forger, http.StatusUnauthorized},
		{"garbage assertion", "/api/v1/namespaces", map[string]string{identity.Header: "not-a-jwt"}, nil, http.StatusUnauthorized},
		{"version without assertion", "/version", nil, nil, http.StatusUnauthorized},
		{"signed by the aggregator", "/api/v1/namespaces", nil, aggregator, http.StatusOK},
		{"healthz needs nothing", "/healthz", nil, nil, http.StatusOK},
		{"readyz needs nothing", "/readyz", nil, nil, http.StatusOK},
	}
	for _, c := range cases {
		req, err := http.NewRequest(http.MethodGet, r.URL+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if c.signer != nil {
			if err := c.signer.SetHeader(req, admin, "registry"); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, resp.StatusCode, c.want, body)
		}
		if c.want == http.StatusUnauthorized && !strings.Contains(string(body), `"reason":"Unauthorized"`) {
			t.Errorf("%s: body is not an Unauthorized Status: %s", c.name, body)
		}
	}

	// The registry's own controllers reach it through the same check, with
	// a key of its own: the default ServiceAccount still appears.
	if !polltest.Holds(t, 30*time.Second, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/api/v1/namespaces/default/serviceaccounts/default", nil)
		if err != nil {
			return false, err
		}
		if err := aggregator.SetHeader(req, admin, "registry"); err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	}) {
		t.Error("the serviceaccount controller never created default/default through the identity check")
	}
}

func signerFromFile(t *testing.T, path string) *identity.Signer {
	t.Helper()
	key, err := identity.LoadPrivateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := identity.NewSigner(identity.SignerConfig{Key: key, Issuer: "kubesplit-aggregator"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
