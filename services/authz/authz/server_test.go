package authz

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

const review = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
"spec":{"user":"bob","nonResourceAttributes":{"path":"/version","verb":"get"}}}`

// TestServerRequiresAssertion: a review is answered only with the
// aggregator's assertion, with the configured chain; health needs nothing.
func TestServerRequiresAssertion(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(context.Background(), Config{
		Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, AuthorizationModes: []string{authz.ModeAlwaysAllow},
		IdentityKeys: []crypto.PublicKey{pub},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	signer, err := identity.NewSigner(identity.SignerConfig{Key: priv, Issuer: DefaultIdentityIssuer})
	if err != nil {
		t.Fatal(err)
	}

	if code := post(t, http.DefaultClient, srv.URL(), nil); code != http.StatusUnauthorized {
		t.Errorf("review without assertion = %d, want 401", code)
	}
	signed := &http.Client{Transport: signer.Transport(http.DefaultTransport, authenticationv1.UserInfo{Username: "agg"}, Audience)}
	var got authorizationv1.SubjectAccessReview
	if code := post(t, signed, srv.URL(), &got); code != http.StatusCreated || !got.Status.Allowed {
		t.Errorf("signed review = %d %+v, want 201 allowed", code, got.Status)
	}
	other := &http.Client{Transport: signer.Transport(http.DefaultTransport, authenticationv1.UserInfo{Username: "agg"}, "registry")}
	if code := post(t, other, srv.URL(), nil); code != http.StatusUnauthorized {
		t.Errorf("review with an assertion for another audience = %d, want 401", code)
	}
	resp, err := http.Get(srv.URL() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz = %d, want 200", resp.StatusCode)
	}
}

func post(t *testing.T, c *http.Client, base string, into any) int {
	t.Helper()
	resp, err := c.Post(base+authz.SubjectAccessReviewPath, "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}
