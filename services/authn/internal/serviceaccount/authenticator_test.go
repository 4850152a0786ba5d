package serviceaccount

import (
	"context"
	"crypto"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

func TestAuthenticateRoundTrip(t *testing.T) {
	keys := map[string]crypto.Signer{"RSA": rsaKey(), "P-256": p256Key(), "P-384": p384Key(), "P-521": p521Key()}
	for name, key := range keys {
		t.Run(name, func(t *testing.T) {
			now := t0.Add(time.Minute)
			a := newTestAuthenticator(t, newAccounts(testSA), &now, key.Public())
			token := issue(t, newTestIssuer(t, key), testSA, authenticationv1.TokenRequestSpec{})
			resp, ok, err := a.AuthenticateToken(context.Background(), token)
			if err != nil || !ok {
				t.Fatalf("AuthenticateToken: ok %v, err %v", ok, err)
			}
			u := resp.User
			jti, _ := decodeSegment(t, token, 1)["jti"].(string)
			if u.Username != "system:serviceaccount:team-a:builder" || u.UID != "uid-1" ||
				!slices.Equal(u.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:team-a"}) ||
				!slices.Equal(u.Extra[CredentialIDExtra], authenticationv1.ExtraValue{"JTI=" + jti}) {
				t.Errorf("user %+v", u)
			}
			if !slices.Equal(resp.Audiences, []string{testIssuer}) {
				t.Errorf("audiences %v", resp.Audiences)
			}
		})
	}
}

func TestAuthenticateRefuses(t *testing.T) {
	key := rsaKey()
	i := newTestIssuer(t, key)
	good := issue(t, i, testSA, authenticationv1.TokenRequestSpec{})
	kid, _ := oidc.KeyID(key.Public())
	otherKid, _ := oidc.KeyID(otherKey().Public())
	withClaims := func(mutate func(*claims)) string {
		c := validClaims()
		mutate(c)
		return craft(t, jwt.SigningMethodRS256, key, map[string]any{"kid": kid}, c)
	}
	parts := strings.Split(good, ".")
	tamperedPayload := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+testIssuer+`","sub":"system:serviceaccount:kube-system:admin"}`)) + "." + parts[2]
	cases := []struct {
		name  string
		token string
		now   time.Time
	}{
		{"expired", good, t0.Add(time.Hour + clockSkew + time.Second)},
		{"not yet valid", withClaims(func(c *claims) { c.NotBefore = jwt.NewNumericDate(t0.Add(10 * time.Minute)) }), t0},
		{"issued in the future", withClaims(func(c *claims) { c.IssuedAt = jwt.NewNumericDate(t0.Add(10 * time.Minute)) }), t0},
		{"no expiry", withClaims(func(c *claims) { c.ExpiresAt = nil }), t0},
		{"wrong issuer", withClaims(func(c *claims) { c.Issuer = "https://elsewhere" }), t0},
		{"wrong audience", issue(t, i, testSA, authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}}), t0},
		{"tampered payload", tamperedPayload, t0},
		{"tampered signature", parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString([]byte("not the signature")), t0},
		{"unknown kid", craft(t, jwt.SigningMethodES256, otherKey(), map[string]any{"kid": otherKid}, validClaims()), t0},
		{"our kid, another key", craft(t, jwt.SigningMethodES256, otherKey(), map[string]any{"kid": kid}, validClaims()), t0},
		{"no kid, another key", craft(t, jwt.SigningMethodES256, otherKey(), map[string]any{"kid": nil}, validClaims()), t0},
		{"alg none", unsignedToken(t), t0},
		{"subject disagrees", withClaims(func(c *claims) { c.Subject = "system:serviceaccount:kube-system:admin" }), t0},
		{"no private claim", withClaims(func(c *claims) { c.Kubernetes = nil }), t0},
		{"no uid", withClaims(func(c *claims) { c.Kubernetes.ServiceAccount.UID = "" }), t0},
		{"bound to a pod", withClaims(func(c *claims) { c.Kubernetes.Pod = &objectRef{Name: "p", UID: "pu"} }), t0},
		{"not a JWT", "abcdef.ghijkl", t0},
		{"empty", "", t0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			a := newTestAuthenticator(t, newAccounts(testSA), &now, key.Public())
			resp, ok, err := a.AuthenticateToken(context.Background(), c.token)
			if ok || err != nil || resp != nil {
				t.Errorf("got %+v, %v, %v; want not recognised", resp, ok, err)
			}
		})
	}
}

// unsignedToken is a well-formed token with alg "none".
func unsignedToken(t *testing.T) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodNone, validClaims()).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuthenticateAcceptsWithinClockSkewAndWithoutKid(t *testing.T) {
	key := p256Key()
	now := t0.Add(time.Hour + clockSkew/2)
	a := newTestAuthenticator(t, newAccounts(testSA), &now, rsaKey().Public(), key.Public())
	if _, ok, err := a.AuthenticateToken(context.Background(), issue(t, newTestIssuer(t, key), testSA, authenticationv1.TokenRequestSpec{})); !ok || err != nil {
		t.Errorf("expired within the clock skew: ok %v, err %v", ok, err)
	}
	now = t0
	// Tokens of kube before 1.16 carry no kid.
	noKid := craft(t, jwt.SigningMethodES256, key, map[string]any{"kid": nil}, validClaims())
	if _, ok, err := a.AuthenticateToken(context.Background(), noKid); !ok || err != nil {
		t.Errorf("no kid: ok %v, err %v", ok, err)
	}
}

func TestAuthenticateAudiences(t *testing.T) {
	now := t0
	i := newTestIssuer(t, p256Key())
	vault := issue(t, i, testSA, authenticationv1.TokenRequestSpec{Audiences: []string{"vault", "other"}})
	a := newTestAuthenticator(t, newAccounts(testSA), &now, p256Key().Public())
	if _, ok, _ := a.AuthenticateToken(context.Background(), vault); ok {
		t.Error("a vault token was accepted by the API")
	}
	ctx := authn.WithAudiences(context.Background(), []string{"other", "vault", "absent"})
	resp, ok, err := a.AuthenticateToken(ctx, vault)
	if !ok || err != nil || !slices.Equal(resp.Audiences, []string{"other", "vault"}) {
		t.Errorf("asked for vault: %+v, %v, %v", resp, ok, err)
	}
	api := issue(t, i, testSA, authenticationv1.TokenRequestSpec{})
	if _, ok, _ := a.AuthenticateToken(ctx, api); ok {
		t.Error("an API token was accepted for vault")
	}
}

func TestAuthenticateDeletedAndRecreatedAccount(t *testing.T) {
	now := t0
	i := newTestIssuer(t, rsaKey())
	lookup := newAccounts(testSA)
	a := newTestAuthenticator(t, lookup, &now, rsaKey().Public())
	old := issue(t, i, testSA, authenticationv1.TokenRequestSpec{})
	if _, ok, _ := a.AuthenticateToken(context.Background(), old); !ok {
		t.Fatal("token refused while the account exists")
	}
	lookup.remove(testSA.Namespace, testSA.Name)
	if _, ok, err := a.AuthenticateToken(context.Background(), old); ok || err != nil {
		t.Errorf("deleted account: ok %v, err %v", ok, err)
	}
	recreated := ServiceAccountRef{Namespace: testSA.Namespace, Name: testSA.Name, UID: "uid-2"}
	lookup.set(recreated)
	if _, ok, err := a.AuthenticateToken(context.Background(), old); ok || err != nil {
		t.Errorf("old token of a recreated account: ok %v, err %v", ok, err)
	}
	resp, ok, err := a.AuthenticateToken(context.Background(), issue(t, i, recreated, authenticationv1.TokenRequestSpec{}))
	if !ok || err != nil || resp.User.UID != "uid-2" {
		t.Errorf("new token of a recreated account: %+v, %v, %v", resp, ok, err)
	}
}

func TestAuthenticateLookupErrorFailsClosed(t *testing.T) {
	now := t0
	lookup := newAccounts(testSA)
	down := errors.New("registry unreachable")
	lookup.fail(down)
	a := newTestAuthenticator(t, lookup, &now, p256Key().Public())
	token := issue(t, newTestIssuer(t, p256Key()), testSA, authenticationv1.TokenRequestSpec{})
	resp, ok, err := a.AuthenticateToken(context.Background(), token)
	if ok || resp != nil || !errors.Is(err, down) {
		t.Errorf("got %+v, %v, %v; want the lookup's error", resp, ok, err)
	}
	// Through a Union the error survives too, so the middleware answers 503
	// and not 401.
	u := authn.Union(a, authn.AuthenticatorFunc(func(context.Context, string) (*authn.Response, bool, error) { return nil, false, nil }))
	if _, ok, err := u.AuthenticateToken(context.Background(), token); ok || !errors.Is(err, down) {
		t.Errorf("union: ok %v, err %v", ok, err)
	}
}

func TestAuthenticatePassesOtherTokensToTheUnion(t *testing.T) {
	now := t0
	lookup := newAccounts(testSA)
	lookup.fail(errors.New("must not be asked"))
	a := newTestAuthenticator(t, lookup, &now, p256Key().Public())
	foreign := craft(t, jwt.SigningMethodES256, otherKey(), nil, jwt.RegisteredClaims{Issuer: "https://dex.example", Subject: "alice"})
	for _, token := range []string{"static-token-abc", foreign} {
		next := authn.AuthenticatorFunc(func(_ context.Context, tok string) (*authn.Response, bool, error) {
			return &authn.Response{User: authenticationv1.UserInfo{Username: "next"}}, tok == token, nil
		})
		resp, ok, err := authn.Union(a, next).AuthenticateToken(context.Background(), token)
		if !ok || err != nil || resp.User.Username != "next" {
			t.Errorf("%.20s: %+v, %v, %v; want the next authenticator's user", token, resp, ok, err)
		}
	}
}

func TestAuthenticatorKeyRotation(t *testing.T) {
	now := t0
	a := newTestAuthenticator(t, newAccounts(testSA), &now, rsaKey().Public(), rsaKey2().Public())
	for _, key := range []crypto.Signer{rsaKey(), rsaKey2()} {
		if _, ok, err := a.AuthenticateToken(context.Background(), issue(t, newTestIssuer(t, key), testSA, authenticationv1.TokenRequestSpec{})); !ok || err != nil {
			t.Errorf("token of a trusted key refused: %v", err)
		}
	}
}

func TestNewAuthenticatorValidates(t *testing.T) {
	lookup := newAccounts()
	cases := []struct {
		name string
		cfg  AuthenticatorConfig
		err  error
	}{
		{"no keys", AuthenticatorConfig{Issuers: []string{testIssuer}, Lookup: lookup}, authn.ErrInvalidConfig},
		{"no issuers", AuthenticatorConfig{Keys: []crypto.PublicKey{p256Key().Public()}, Lookup: lookup}, authn.ErrInvalidConfig},
		{"empty issuer", AuthenticatorConfig{Keys: []crypto.PublicKey{p256Key().Public()}, Issuers: []string{""}, Lookup: lookup}, authn.ErrInvalidConfig},
		{"no lookup", AuthenticatorConfig{Keys: []crypto.PublicKey{p256Key().Public()}, Issuers: []string{testIssuer}}, authn.ErrInvalidConfig},
		{"bad key", AuthenticatorConfig{Keys: []crypto.PublicKey{"pem"}, Issuers: []string{testIssuer}, Lookup: lookup}, ErrUnsupportedKey},
	}
	for _, c := range cases {
		if _, err := NewAuthenticator(c.cfg); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}
