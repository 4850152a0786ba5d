package identity

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const target = "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb&limit=10"

func TestRoundTrip(t *testing.T) {
	for name, key := range map[string]crypto.Signer{"ES256": newECKey(t), "EdDSA": newEdKey(t)} {
		t.Run(name, func(t *testing.T) {
			s := newSigner(t, key, testIssuer)
			v := newVerifier(t, t0, key.Public())
			token := sign(t, s, testAudience, httpRequest("GET", target))
			if alg := header(t, token)["alg"]; alg != name {
				t.Errorf("alg %v, want %s", alg, name)
			}
			got, err := v.Verify(token, httpRequest("GET", target))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, alice) {
				t.Errorf("got %+v, want %+v", got, alice)
			}
		})
	}
}

func TestClaims(t *testing.T) {
	s := newSigner(t, newECKey(t), testIssuer)
	c := payload(t, sign(t, s, testAudience, httpRequest("GET", target)))
	for claim, want := range map[string]any{
		"iss": testIssuer, "sub": "alice", "aud": []any{testAudience}, "uid": "uid-1",
		"iat": float64(t0.Unix()), "nbf": float64(t0.Unix()), "exp": float64(t0.Add(DefaultTTL).Unix()),
	} {
		if !reflect.DeepEqual(c[claim], want) {
			t.Errorf("%s = %#v, want %#v", claim, c[claim], want)
		}
	}
	for _, claim := range []string{"jti", "req", "groups", "extra"} {
		if c[claim] == nil {
			t.Errorf("claim %s missing", claim)
		}
	}
}

func TestVerifyRejects(t *testing.T) {
	key := newECKey(t)
	s := newSigner(t, key, testIssuer)
	v := newVerifier(t, t0, key.Public())
	good := func() string { return sign(t, s, testAudience, httpRequest("GET", target)) }
	leeway := DefaultLeeway

	cases := []struct {
		name     string
		token    func() string
		verifier *Verifier
		request  string // method and target the assertion is presented with
		want     error
	}{
		{name: "empty", token: func() string { return "" }, want: ErrMissing},
		{name: "garbage", token: func() string { return "not.a.jwt" }, want: ErrInvalid},
		{name: "tampered payload", token: func() string { return tamper(t, good(), "sub", "admin") }, want: ErrInvalid},
		{name: "tampered groups", token: func() string { return tamper(t, good(), "groups", []string{"system:masters"}) }, want: ErrInvalid},
		{name: "wrong key", token: func() string {
			return sign(t, newSigner(t, newECKey(t), testIssuer), testAudience, httpRequest("GET", target))
		}, want: ErrInvalid},
		{name: "wrong key under the right kid", token: func() string {
			return resign(t, good(), jwt.SigningMethodES256, newECKey(t))
		}, want: ErrInvalid},
		{name: "expired", token: good, verifier: newVerifier(t, t0.Add(DefaultTTL+leeway+time.Second), key.Public()), want: ErrExpired},
		{name: "not yet valid", token: good, verifier: newVerifier(t, t0.Add(-leeway-time.Second), key.Public()), want: ErrNotYetValid},
		{name: "wrong audience", token: func() string { return sign(t, s, "admission", httpRequest("GET", target)) }, want: ErrWrongAudience},
		{name: "wrong issuer", token: func() string {
			return sign(t, newSigner(t, key, "someone-else"), testAudience, httpRequest("GET", target))
		}, want: ErrWrongIssuer},
		{name: "alg none", token: func() string {
			return resign(t, good(), jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType)
		}, want: ErrInvalid},
		{name: "HS256 keyed with the public key", token: func() string {
			return resign(t, good(), jwt.SigningMethodHS256, publicPEM(t, key.Public()))
		}, want: ErrInvalid},
		{name: "no req claim, signed with the right key", token: func() string {
			return resign(t, tamper(t, good(), "req", nil), jwt.SigningMethodES256, key)
		}, want: ErrInvalid},
		{name: "too long a lifetime", token: func() string {
			long, err := NewSigner(SignerConfig{Key: key, Issuer: testIssuer, TTL: time.Hour, Now: at(t0)})
			if err != nil {
				t.Fatal(err)
			}
			return sign(t, long, testAudience, httpRequest("GET", target))
		}, want: ErrExpired},
		{name: "replay to another path", token: good, request: "GET /api/v1/namespaces/default/secrets?labelSelector=app%3Dweb&limit=10", want: ErrWrongRequest},
		{name: "replay with another method", token: good, request: "DELETE " + target, want: ErrWrongRequest},
		{name: "replay with another query", token: good, request: "GET /api/v1/namespaces/default/pods?limit=10", want: ErrWrongRequest},
		{name: "replay to an escaped slash", token: func() string {
			return sign(t, s, testAudience, httpRequest("GET", "/api/v1/namespaces/a/b"))
		}, request: "GET /api/v1/namespaces/a%2Fb", want: ErrWrongRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verifier := v
			if tc.verifier != nil {
				verifier = tc.verifier
			}
			method, url := "GET", target
			if tc.request != "" {
				method, url, _ = strings.Cut(tc.request, " ")
			}
			_, err := verifier.Verify(tc.token(), httpRequest(method, url))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestBindingIgnoresQueryEncoding(t *testing.T) {
	key := newEdKey(t)
	token := sign(t, newSigner(t, key, testIssuer), testAudience, httpRequest("GET", "/api/v1/pods?watch=1&labelSelector=a%3Db"))
	if _, err := newVerifier(t, t0, key.Public()).Verify(token, httpRequest("GET", "/api/v1/pods?labelSelector=a=b&watch=1")); err != nil {
		t.Fatalf("same query, other order and escaping: %v", err)
	}
}

func TestKeyRotation(t *testing.T) {
	oldKey, newKey := newECKey(t), newEdKey(t)
	both := newVerifier(t, t0, oldKey.Public(), newKey.Public())
	onlyNew := newVerifier(t, t0, newKey.Public())
	for name, key := range map[string]crypto.Signer{"old": oldKey, "new": newKey} {
		token := sign(t, newSigner(t, key, testIssuer), testAudience, httpRequest("GET", target))
		if _, err := both.Verify(token, httpRequest("GET", target)); err != nil {
			t.Errorf("%s key during rotation: %v", name, err)
		}
		_, err := onlyNew.Verify(token, httpRequest("GET", target))
		if wantOK := name == "new"; (err == nil) != wantOK || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("%s key after rotation: %v", name, err)
		}
	}
}

// header and payload decode a token's parts without verifying them.
func header(t *testing.T, token string) map[string]any { return part(t, token, 0) }

func payload(t *testing.T, token string) map[string]any { return part(t, token, 1) }

func part(t *testing.T, token string, i int) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// tamper changes one claim and keeps the original signature.
func tamper(t *testing.T, token, claim string, value any) string {
	t.Helper()
	c := payload(t, token)
	c[claim] = value
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	parts[1] = base64.RawURLEncoding.EncodeToString(raw)
	return strings.Join(parts, ".")
}

// resign signs a token's header (kid included) and claims again with
// another method and key, as a forger who knows the kid would.
func resign(t *testing.T, token string, method jwt.SigningMethod, key any) string {
	t.Helper()
	forged := jwt.NewWithClaims(method, jwt.MapClaims(payload(t, token)))
	forged.Header["kid"] = header(t, token)["kid"]
	signed, err := forged.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

func publicPEM(t *testing.T, pub crypto.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}
