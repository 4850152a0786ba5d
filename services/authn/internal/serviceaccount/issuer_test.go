package serviceaccount

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// decodeSegment reads one base64url JSON segment of a compact JWT.
func decodeSegment(t *testing.T, token string, index int) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[index])
	if err != nil {
		t.Fatalf("segment %d: %v", index, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("segment %d: %v", index, err)
	}
	return m
}

func TestIssueWritesKubeClaims(t *testing.T) {
	i := newTestIssuer(t, rsaKey())
	token, exp, err := i.Issue(testSA, authenticationv1.TokenRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(t0.Add(time.Hour)) {
		t.Errorf("expiration %v, want %v", exp, t0.Add(time.Hour))
	}
	header := decodeSegment(t, token, 0)
	kid, _ := oidc.KeyID(rsaKey().Public())
	if header["alg"] != "RS256" || header["kid"] != kid || header["typ"] != "JWT" {
		t.Errorf("header %v", header)
	}
	payload := decodeSegment(t, token, 1)
	want := map[string]any{
		"iss": testIssuer,
		"sub": "system:serviceaccount:team-a:builder",
		"aud": []any{testIssuer},
		"iat": float64(t0.Unix()),
		"nbf": float64(t0.Unix()),
		"exp": float64(t0.Add(time.Hour).Unix()),
		"kubernetes.io": map[string]any{
			"namespace":      "team-a",
			"serviceaccount": map[string]any{"name": "builder", "uid": "uid-1"},
		},
	}
	for k, v := range want {
		if got, _ := json.Marshal(payload[k]); string(got) != string(must(json.Marshal(v))) {
			t.Errorf("claim %s = %s, want %s", k, got, must(json.Marshal(v)))
		}
	}
	if jti, _ := payload["jti"].(string); jti == "" {
		t.Errorf("no jti in %v", payload)
	}
	if other := issue(t, i, testSA, authenticationv1.TokenRequestSpec{}); decodeSegment(t, other, 1)["jti"] == payload["jti"] {
		t.Error("two tokens share a jti")
	}
}

func TestIssueLifetime(t *testing.T) {
	seconds := func(n int64) *int64 { return &n }
	cases := []struct {
		name   string
		maxTTL time.Duration
		asked  *int64
		want   time.Duration
		err    error
	}{
		{name: "default is an hour", want: time.Hour},
		{name: "ten minutes is the least", asked: seconds(600), want: 10 * time.Minute},
		{name: "under ten minutes is invalid", asked: seconds(599), err: ErrInvalidTokenRequest},
		{name: "zero is invalid, not the default", asked: seconds(0), err: ErrInvalidTokenRequest},
		{name: "over 2^32 seconds is invalid", asked: seconds(1<<32 + 1), err: ErrInvalidTokenRequest},
		{name: "long without a cap", asked: seconds(48 * 3600), want: 48 * time.Hour},
		{name: "capped at MaxTTL", maxTTL: 2 * time.Hour, asked: seconds(48 * 3600), want: 2 * time.Hour},
		{name: "under MaxTTL kept", maxTTL: 2 * time.Hour, asked: seconds(1800), want: 30 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := newTestIssuer(t, p256Key(), func(cfg *IssuerConfig) { cfg.MaxTTL = c.maxTTL })
			got, err := i.issue(testSA, authenticationv1.TokenRequestSpec{ExpirationSeconds: c.asked})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			if !got.expires.Equal(t0.Add(c.want)) || *got.spec.ExpirationSeconds != int64(c.want/time.Second) {
				t.Errorf("expires %v (%ds), want %v", got.expires, *got.spec.ExpirationSeconds, t0.Add(c.want))
			}
			if exp := decodeSegment(t, got.token, 1)["exp"]; exp != float64(t0.Add(c.want).Unix()) {
				t.Errorf("exp claim %v", exp)
			}
		})
	}
}

func TestIssueAudiences(t *testing.T) {
	cases := []struct {
		name     string
		defaults []string
		asked    []string
		want     []string
		err      error
	}{
		{name: "issuer when nothing is configured", want: []string{testIssuer}},
		{name: "configured defaults", defaults: []string{"api", "other"}, want: []string{"api", "other"}},
		{name: "asked for", defaults: []string{"api"}, asked: []string{"vault"}, want: []string{"vault"}},
		{name: "empty audience", asked: []string{"vault", ""}, err: ErrInvalidTokenRequest},
		{name: "repeated audience", asked: []string{"vault", "vault"}, err: ErrInvalidTokenRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := newTestIssuer(t, p256Key(), func(cfg *IssuerConfig) { cfg.DefaultAudiences = c.defaults })
			got, err := i.issue(testSA, authenticationv1.TokenRequestSpec{Audiences: c.asked})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			aud, _ := json.Marshal(decodeSegment(t, got.token, 1)["aud"])
			if string(aud) != string(must(json.Marshal(c.want))) || strings.Join(got.spec.Audiences, ",") != strings.Join(c.want, ",") {
				t.Errorf("aud %s, spec %v, want %v", aud, got.spec.Audiences, c.want)
			}
		})
	}
}

func TestIssueRefusesBindingAndIncompleteAccounts(t *testing.T) {
	i := newTestIssuer(t, p256Key())
	bound := authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "p"}}
	if _, _, err := i.Issue(testSA, bound); !errors.Is(err, ErrBindingUnsupported) {
		t.Errorf("bound: %v, want ErrBindingUnsupported", err)
	}
	for _, sa := range []ServiceAccountRef{{Name: "a", UID: "u"}, {Namespace: "n", UID: "u"}, {Namespace: "n", Name: "a"}} {
		if _, _, err := i.Issue(sa, authenticationv1.TokenRequestSpec{}); !errors.Is(err, ErrInvalidServiceAccount) {
			t.Errorf("%+v: %v, want ErrInvalidServiceAccount", sa, err)
		}
	}
}

func TestNewIssuerValidates(t *testing.T) {
	smallRSA, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	cases := []struct {
		name string
		cfg  IssuerConfig
		err  error
	}{
		{"no key", IssuerConfig{Issuer: testIssuer}, authn.ErrInvalidConfig},
		{"no issuer", IssuerConfig{Key: p256Key()}, authn.ErrInvalidConfig},
		{"MaxTTL under an hour", IssuerConfig{Key: p256Key(), Issuer: testIssuer, MaxTTL: 59 * time.Minute}, authn.ErrInvalidConfig},
		{"small RSA key", IssuerConfig{Key: smallRSA, Issuer: testIssuer}, ErrUnsupportedKey},
		{"ed25519 key", IssuerConfig{Key: crypto.Signer(edKey), Issuer: testIssuer}, ErrUnsupportedKey},
	}
	for _, c := range cases {
		if _, err := NewIssuer(c.cfg); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}
