package oidc

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// t0 is the fixed time tests sign tokens at.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// provider is a fake OpenID provider on a TLS test server: it serves its
// discovery document and the public halves of its keys, counts the fetches,
// and can be made to fail.
type provider struct {
	srv     *httptest.Server
	fetches atomic.Int32

	mu      sync.Mutex
	keys    []crypto.Signer
	failing bool
	issuer  string // what the discovery document claims; the URL when empty
}

func newProvider(t *testing.T, keys ...crypto.Signer) *provider {
	t.Helper()
	p := &provider{keys: keys}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DiscoveryPath, func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.failing {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		issuer := p.issuer
		if issuer == "" {
			issuer = p.srv.URL
		}
		_ = json.NewEncoder(w).Encode(OpenIDConfiguration{Issuer: issuer, JWKSURI: p.srv.URL + "/keys"})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		var pubs []crypto.PublicKey
		for _, k := range p.keys {
			pubs = append(pubs, k.Public())
		}
		set := must(NewJSONWebKeySet(pubs))
		// Keys for other uses, or of unknown kinds, must be skipped.
		set.Keys = append(set.Keys, JSONWebKey{KeyType: "oct", KeyID: "hmac"}, JSONWebKey{KeyType: "RSA", Use: "enc", KeyID: "enc", N: "AQAB", E: "AQAB"})
		_ = json.NewEncoder(w).Encode(set)
	})
	p.srv = httptest.NewTLSServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) setKeys(keys ...crypto.Signer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = keys
}

func (p *provider) setFailing(failing bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failing = failing
}

// sign makes a token of this provider with key, the usual claims overridden
// by extra (a nil value deletes a claim).
func (p *provider) sign(t *testing.T, key crypto.Signer, extra jwt.MapClaims) string {
	t.Helper()
	c := jwt.MapClaims{
		"iss": p.srv.URL, "aud": []string{"kubesplit"}, "sub": "alice-id",
		"email": "alice@example.com", "email_verified": true, "groups": []string{"dev", "ops"},
		"iat": t0.Unix(), "exp": t0.Add(time.Hour).Unix(),
	}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	method := jwt.SigningMethod(jwt.SigningMethodRS256)
	if ec, ok := key.(*ecdsa.PrivateKey); ok {
		method = jwt.GetSigningMethod(must(SigningAlgorithm(&ec.PublicKey)))
	}
	tok := jwt.NewWithClaims(method, c)
	tok.Header["kid"] = must(KeyID(key.Public()))
	return must(tok.SignedString(key))
}

// authenticator returns an Authenticator for p whose clock reads *now.
func (p *provider) authenticator(t *testing.T, now *time.Time, mutate ...func(*Config)) *Authenticator {
	t.Helper()
	cfg := Config{
		IssuerURL: p.srv.URL, ClientID: "kubesplit", HTTPClient: p.srv.Client(),
		SigningAlgs: []string{"RS256", "ES256"}, Now: func() time.Time { return *now },
	}
	for _, m := range mutate {
		m(&cfg)
	}
	a, err := NewAuthenticator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestOIDCUserMapping(t *testing.T) {
	p := newProvider(t, rsaKey(), p256Key())
	cases := []struct {
		name   string
		key    crypto.Signer
		cfg    func(*Config)
		claims jwt.MapClaims
		user   string
		groups []string
	}{
		{name: "sub with the issuer as prefix", key: rsaKey(), user: p.srv.URL + "#alice-id"},
		{name: "ECDSA key", key: p256Key(), user: p.srv.URL + "#alice-id"},
		{name: "email, no prefix", key: rsaKey(), cfg: func(c *Config) { c.UsernameClaim = "email" }, user: "alice@example.com"},
		{name: "email, unverified flag absent", key: rsaKey(), cfg: func(c *Config) { c.UsernameClaim = "email" }, claims: jwt.MapClaims{"email_verified": nil}, user: "alice@example.com"},
		{name: "explicit prefix", key: rsaKey(), cfg: func(c *Config) { c.UsernamePrefix = "oidc:" }, user: "oidc:alice-id"},
		{name: "no prefix", key: rsaKey(), cfg: func(c *Config) { c.UsernamePrefix = "-" }, user: "alice-id"},
		{
			name: "groups with prefix", key: rsaKey(), cfg: func(c *Config) { c.GroupsClaim = "groups"; c.GroupsPrefix = "oidc:" },
			user: p.srv.URL + "#alice-id", groups: []string{"oidc:dev", "oidc:ops"},
		},
		{
			name: "a single group as a string", key: rsaKey(), cfg: func(c *Config) { c.GroupsClaim = "groups" },
			claims: jwt.MapClaims{"groups": "dev"}, user: p.srv.URL + "#alice-id", groups: []string{"dev"},
		},
		{
			name: "required claim holds", key: rsaKey(), cfg: func(c *Config) { c.RequiredClaims = map[string]string{"hd": "example.com"} },
			claims: jwt.MapClaims{"hd": "example.com"}, user: p.srv.URL + "#alice-id",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := t0
			mutate := []func(*Config){}
			if c.cfg != nil {
				mutate = append(mutate, c.cfg)
			}
			resp, ok, err := p.authenticator(t, &now, mutate...).AuthenticateToken(context.Background(), p.sign(t, c.key, c.claims))
			if !ok || err != nil {
				t.Fatalf("ok %v, err %v", ok, err)
			}
			if resp.User.Username != c.user || !slices.Equal(resp.User.Groups, c.groups) {
				t.Errorf("user %+v, want %s %v", resp.User, c.user, c.groups)
			}
		})
	}
}

func TestOIDCRefuses(t *testing.T) {
	p := newProvider(t, rsaKey(), p384Key())
	cases := []struct {
		name   string
		key    crypto.Signer
		cfg    func(*Config)
		claims jwt.MapClaims
		now    time.Time
	}{
		{name: "expired", key: rsaKey(), now: t0.Add(time.Hour + clockSkew + time.Second)},
		{name: "no expiry", key: rsaKey(), claims: jwt.MapClaims{"exp": nil}},
		{name: "another client", key: rsaKey(), claims: jwt.MapClaims{"aud": "other-app"}},
		{name: "algorithm not allowed", key: p384Key()},
		{name: "key not published", key: rsaKey2()},
		{name: "unverified email", key: rsaKey(), cfg: func(c *Config) { c.UsernameClaim = "email" }, claims: jwt.MapClaims{"email_verified": false}},
		{name: "no user name", key: rsaKey(), claims: jwt.MapClaims{"sub": nil}},
		{name: "user name not a string", key: rsaKey(), claims: jwt.MapClaims{"sub": 42}},
		{name: "groups not strings", key: rsaKey(), cfg: func(c *Config) { c.GroupsClaim = "groups" }, claims: jwt.MapClaims{"groups": []int{1}}},
		{name: "required claim missing", key: rsaKey(), cfg: func(c *Config) { c.RequiredClaims = map[string]string{"hd": "example.com"} }},
		{name: "required claim differs", key: rsaKey(), cfg: func(c *Config) { c.RequiredClaims = map[string]string{"hd": "example.com"} }, claims: jwt.MapClaims{"hd": "evil.com"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = t0
			}
			mutate := []func(*Config){}
			if c.cfg != nil {
				mutate = append(mutate, c.cfg)
			}
			resp, ok, err := p.authenticator(t, &now, mutate...).AuthenticateToken(context.Background(), p.sign(t, c.key, c.claims))
			if ok || err != nil || resp != nil {
				t.Errorf("got %+v, %v, %v; want not recognised", resp, ok, err)
			}
		})
	}
}

func TestOIDCOtherIssuersCostNoFetch(t *testing.T) {
	p := newProvider(t, rsaKey())
	now := t0
	a := p.authenticator(t, &now)
	for _, token := range []string{p.sign(t, rsaKey(), jwt.MapClaims{"iss": "https://elsewhere"}), "opaque-token", ""} {
		if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err != nil {
			t.Errorf("%.20q: ok %v, err %v", token, ok, err)
		}
	}
	if n := p.fetches.Load(); n != 0 {
		t.Errorf("%d fetches for tokens of other issuers", n)
	}
}

func TestOIDCKeyRotation(t *testing.T) {
	p := newProvider(t, rsaKey())
	now := t0
	a := p.authenticator(t, &now, func(c *Config) { c.RefreshInterval = time.Minute })
	ctx := context.Background()
	if _, ok, err := a.AuthenticateToken(ctx, p.sign(t, rsaKey(), nil)); !ok || err != nil {
		t.Fatalf("first token: ok %v, err %v", ok, err)
	}
	if _, ok, _ := a.AuthenticateToken(ctx, p.sign(t, rsaKey(), nil)); !ok || p.fetches.Load() != 1 {
		t.Fatalf("known key: ok %v after %d fetches, want 1", ok, p.fetches.Load())
	}
	// The provider rotates to a new key. Within the refresh interval a
	// token naming an unknown key is refused without a fetch, so that made-up
	// key ids cannot make us hammer the provider.
	p.setKeys(rsaKey(), rsaKey2())
	rotated := p.sign(t, rsaKey2(), nil)
	if _, ok, err := a.AuthenticateToken(ctx, rotated); ok || err != nil || p.fetches.Load() != 1 {
		t.Fatalf("unknown key within the interval: ok %v, err %v, %d fetches, want 1", ok, err, p.fetches.Load())
	}
	// After it, the first token naming the new key makes us fetch again.
	now = now.Add(time.Minute)
	if _, ok, err := a.AuthenticateToken(ctx, rotated); !ok || err != nil || p.fetches.Load() != 2 {
		t.Errorf("rotated key after the interval: ok %v, err %v, %d fetches, want 2", ok, err, p.fetches.Load())
	}
	// Known keys never cause a fetch, however late.
	now = now.Add(time.Minute)
	if _, ok, _ := a.AuthenticateToken(ctx, p.sign(t, rsaKey(), jwt.MapClaims{"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})); !ok || p.fetches.Load() != 2 {
		t.Errorf("known key: ok %v, %d fetches, want 2", ok, p.fetches.Load())
	}
}

func TestOIDCProviderDownFailsClosed(t *testing.T) {
	p := newProvider(t, rsaKey())
	p.setFailing(true)
	now := t0
	a := p.authenticator(t, &now)
	resp, ok, err := a.AuthenticateToken(context.Background(), p.sign(t, rsaKey(), nil))
	if ok || resp != nil || !errors.Is(err, ErrProviderUnavailable) {
		t.Fatalf("got %+v, %v, %v; want ErrProviderUnavailable", resp, ok, err)
	}
	// Once it is back and the interval has passed, tokens work again.
	p.setFailing(false)
	now = now.Add(defaultRefreshInterval)
	if _, ok, err := a.AuthenticateToken(context.Background(), p.sign(t, rsaKey(), nil)); !ok || err != nil {
		t.Errorf("after recovery: ok %v, err %v", ok, err)
	}
}

func TestOIDCDiscoveryMustNameTheIssuer(t *testing.T) {
	p := newProvider(t, rsaKey())
	p.issuer = "https://impostor.example"
	now := t0
	if _, ok, err := p.authenticator(t, &now).AuthenticateToken(context.Background(), p.sign(t, rsaKey(), nil)); ok || !errors.Is(err, ErrProviderUnavailable) {
		t.Errorf("ok %v, err %v; want ErrProviderUnavailable", ok, err)
	}
}

func TestOIDCAudiences(t *testing.T) {
	p := newProvider(t, rsaKey())
	now := t0
	token := p.sign(t, rsaKey(), nil)
	agnostic := p.authenticator(t, &now)
	aware := p.authenticator(t, &now, func(c *Config) { c.APIAudiences = []string{"https://kubesplit.local"} })
	vault := authn.WithAudiences(context.Background(), []string{"vault"})
	api := authn.WithAudiences(context.Background(), []string{"vault", "https://kubesplit.local"})
	cases := []struct {
		name string
		a    *Authenticator
		ctx  context.Context
		ok   bool
		auds []string
	}{
		{"agnostic", agnostic, vault, true, nil},
		{"aware, nothing asked", aware, context.Background(), true, []string{"https://kubesplit.local"}},
		{"aware, other audience asked", aware, vault, false, nil},
		{"aware, ours among those asked", aware, api, true, []string{"https://kubesplit.local"}},
	}
	for _, c := range cases {
		resp, ok, err := c.a.AuthenticateToken(c.ctx, token)
		if ok != c.ok || err != nil || (ok && !slices.Equal(resp.Audiences, c.auds)) {
			t.Errorf("%s: %+v, %v, %v", c.name, resp, ok, err)
		}
	}
}

func TestNewOIDCAuthenticatorValidates(t *testing.T) {
	cases := []Config{
		{ClientID: "k"},
		{IssuerURL: "http://dex.example", ClientID: "k"},
		{IssuerURL: "https://dex.example?tenant=a", ClientID: "k"},
		{IssuerURL: "https://dex.example"},
		{IssuerURL: "https://dex.example", ClientID: "k", SigningAlgs: []string{"HS256"}},
		{IssuerURL: "https://dex.example", ClientID: "k", Timeout: -time.Second},
	}
	for _, cfg := range cases {
		if _, err := NewAuthenticator(cfg); !errors.Is(err, authn.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
