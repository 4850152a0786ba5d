package serviceaccount

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// discoveryServer serves the discovery documents for an RSA and a P-384 key.
func discoveryServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := NewDiscoveryHandler(DiscoveryConfig{Issuer: testIssuer, Keys: []crypto.PublicKey{rsaKey().Public(), p384Key().Public()}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path and decodes its JSON into v, checking the content type.
func get(t *testing.T, srv *httptest.Server, path, contentType string, v any) {
	t.Helper()
	res, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != contentType {
		t.Fatalf("GET %s: %d %q: %s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

func TestDiscoveryDocumentsVerifyIssuedTokens(t *testing.T) {
	srv := discoveryServer(t)
	var doc oidc.OpenIDConfiguration
	get(t, srv, oidc.DiscoveryPath, "application/json", &doc)
	if doc.Issuer != testIssuer || doc.JWKSURI != testIssuer+JWKSPath ||
		!slices.Equal(doc.ResponseTypesSupported, []string{"id_token"}) ||
		!slices.Equal(doc.SubjectTypesSupported, []string{"public"}) ||
		!slices.Equal(doc.IDTokenSigningAlgValuesSupported, []string{"ES384", "RS256"}) {
		t.Errorf("discovery document %+v", doc)
	}
	var set oidc.JSONWebKeySet
	get(t, srv, JWKSPath, "application/jwk-set+json", &set)

	// A relying party's keyfunc: the key the token's kid names in the set.
	keyfunc := func(tok *jwt.Token) (any, error) {
		for _, k := range set.Keys {
			if k.KeyID == tok.Header["kid"] && k.Algorithm == tok.Method.Alg() {
				return k.PublicKey()
			}
		}
		return nil, fmt.Errorf("no key %v", tok.Header["kid"])
	}
	for _, key := range []crypto.Signer{rsaKey(), p384Key()} {
		token := issue(t, newTestIssuer(t, key), testSA, authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}})
		parsed, err := jwt.Parse(token, keyfunc, jwt.WithIssuer(doc.Issuer), jwt.WithAudience("vault"),
			jwt.WithValidMethods(doc.IDTokenSigningAlgValuesSupported), jwt.WithTimeFunc(func() time.Time { return t0 }))
		if err != nil || !parsed.Valid {
			t.Errorf("%T token does not verify against the published keys: %v", key, err)
		}
	}
	foreign := issue(t, newTestIssuer(t, p256Key()), testSA, authenticationv1.TokenRequestSpec{})
	if _, err := jwt.Parse(foreign, keyfunc, jwt.WithTimeFunc(func() time.Time { return t0 })); err == nil {
		t.Error("a token of an unpublished key verified")
	}
}

func TestDiscoveryHandlerErrors(t *testing.T) {
	srv := discoveryServer(t)
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{http.MethodPost, JWKSPath, http.StatusMethodNotAllowed},
		{http.MethodGet, "/openid/v1/other", http.StatusNotFound},
		{http.MethodHead, oidc.DiscoveryPath, http.StatusOK},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, res.StatusCode, c.code)
		}
	}
}

func TestNewDiscoveryHandlerValidates(t *testing.T) {
	keys := []crypto.PublicKey{p256Key().Public()}
	cases := []struct {
		name string
		cfg  DiscoveryConfig
		err  error
	}{
		{"http issuer", DiscoveryConfig{Issuer: "http://kubesplit.local", Keys: keys}, authn.ErrInvalidConfig},
		{"not a URL", DiscoveryConfig{Issuer: "kubesplit", Keys: keys}, authn.ErrInvalidConfig},
		{"issuer with a query", DiscoveryConfig{Issuer: testIssuer + "?a=b", Keys: keys}, authn.ErrInvalidConfig},
		{"http JWKS URI", DiscoveryConfig{Issuer: testIssuer, JWKSURI: "http://keys.local/jwks", Keys: keys}, authn.ErrInvalidConfig},
		{"no keys", DiscoveryConfig{Issuer: testIssuer}, authn.ErrInvalidConfig},
		{"bad key", DiscoveryConfig{Issuer: testIssuer, Keys: []crypto.PublicKey{"pem"}}, ErrUnsupportedKey},
	}
	for _, c := range cases {
		if _, err := NewDiscoveryHandler(c.cfg); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}

// An OpenID relying party (here our own oidc.Authenticator, as vault or a
// cloud's workload identity would be) finds the keys through discovery
// alone and accepts the token.
func TestDiscoveryServesOIDCRelyingParties(t *testing.T) {
	var handler atomic.Value
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.Load().(http.Handler).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h, err := NewDiscoveryHandler(DiscoveryConfig{Issuer: srv.URL, Keys: []crypto.PublicKey{p256Key().Public()}})
	if err != nil {
		t.Fatal(err)
	}
	handler.Store(h)

	i := newTestIssuer(t, p256Key(), func(c *IssuerConfig) { c.Issuer = srv.URL })
	token := issue(t, i, testSA, authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}})
	rp, err := oidc.NewAuthenticator(oidc.Config{
		IssuerURL: srv.URL, ClientID: "vault", UsernamePrefix: "-", SigningAlgs: []string{"ES256"},
		HTTPClient: srv.Client(), Now: func() time.Time { return t0 },
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, ok, err := rp.AuthenticateToken(t.Context(), token)
	if !ok || err != nil || resp.User.Username != "system:serviceaccount:team-a:builder" {
		t.Errorf("relying party: %+v, %v, %v", resp, ok, err)
	}
}
