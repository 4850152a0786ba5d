package authn

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// testTokens is the static token file most tests use.
const testTokens = `# kubesplit test tokens
admin-token,admin,uid-admin,"system:masters"

alice-token,alice,uid-alice
bob-token,bob,uid-bob,"dev, ops"
`

// errBackendDown stands for an authenticator that could not decide.
var errBackendDown = errors.New("backend down")

// writeTokenFile writes content to a fresh token file and returns its path.
func writeTokenFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newTestTokenFile loads content as a token file authenticator.
func newTestTokenFile(t *testing.T, content string) Authenticator {
	t.Helper()
	a, err := NewTokenFile(writeTokenFile(t, content))
	if err != nil {
		t.Fatalf("NewTokenFile: %v", err)
	}
	return a
}

// audienceAware recognises "aud-token" as carol, for the audiences api and
// vault only, the way a JWT authenticator would.
var audienceAware = AuthenticatorFunc(func(ctx context.Context, token string) (*Response, bool, error) {
	if token != "aud-token" {
		return nil, false, nil
	}
	auds := []string{"api", "vault"}
	if want, ok := AudiencesFrom(ctx); ok {
		if auds = intersect(want, auds); len(auds) == 0 {
			return nil, false, nil
		}
	}
	resp := &Response{Audiences: auds}
	resp.User.Username, resp.User.UID = "carol", "uid-carol"
	return resp, true, nil
})

// flaky cannot decide about "flaky-token" and recognises nothing else.
var flaky = AuthenticatorFunc(func(_ context.Context, token string) (*Response, bool, error) {
	if token == "flaky-token" {
		return nil, false, errBackendDown
	}
	return nil, false, nil
})

// newRemote serves a as a TokenReview webhook on 127.0.0.1:0 and returns a
// WebhookClient for it.
func newRemote(t *testing.T, a Authenticator) *WebhookClient {
	t.Helper()
	srv := httptest.NewServer(NewTokenReviewHandler(a))
	t.Cleanup(srv.Close)
	c, err := NewWebhookClient(WebhookConfig{Config: webhook.Config{URL: srv.URL + TokenReviewPath, HTTPClient: srv.Client(), Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatalf("NewWebhookClient: %v", err)
	}
	return c
}
