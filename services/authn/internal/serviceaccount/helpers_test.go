package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
)

const testIssuer = "https://kubesplit.local"

// t0 is the fixed time tests issue tokens at.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Keys are generated once per test binary: RSA generation is slow.
var (
	rsaKey   = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	rsaKey2  = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	p256Key  = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	p384Key  = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)) })
	p521Key  = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P521(), rand.Reader)) })
	otherKey = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// testSA is the account most tests issue tokens for.
var testSA = ServiceAccountRef{Namespace: "team-a", Name: "builder", UID: "uid-1"}

// accounts is a Lookup backed by a map from "ns/name" to uid, with an
// error to return instead when set.
type accounts struct {
	mu   sync.Mutex
	uids map[string]string
	err  error
}

func newAccounts(sas ...ServiceAccountRef) *accounts {
	a := &accounts{uids: map[string]string{}}
	for _, sa := range sas {
		a.set(sa)
	}
	return a
}

func (a *accounts) set(sa ServiceAccountRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.uids[sa.Namespace+"/"+sa.Name] = sa.UID
}

func (a *accounts) remove(namespace, name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.uids, namespace+"/"+name)
}

func (a *accounts) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.err = err
}

func (a *accounts) ServiceAccount(_ context.Context, namespace, name string) (string, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return "", false, a.err
	}
	uid, ok := a.uids[namespace+"/"+name]
	return uid, ok, nil
}

// newTestIssuer returns an Issuer signing with key at t0.
func newTestIssuer(t *testing.T, key crypto.Signer, mutate ...func(*IssuerConfig)) *Issuer {
	t.Helper()
	cfg := IssuerConfig{Key: key, Issuer: testIssuer, Now: func() time.Time { return t0 }}
	for _, m := range mutate {
		m(&cfg)
	}
	i, err := NewIssuer(cfg)
	if err != nil {
		t.Fatalf("NewIssuer: %v", err)
	}
	return i
}

// newTestAuthenticator returns an Authenticator trusting keys, whose clock
// reads *now.
func newTestAuthenticator(t *testing.T, lookup Lookup, now *time.Time, keys ...crypto.PublicKey) *Authenticator {
	t.Helper()
	a, err := NewAuthenticator(AuthenticatorConfig{
		Keys:    keys,
		Issuers: []string{testIssuer},
		Lookup:  lookup,
		Now:     func() time.Time { return *now },
	})
	if err != nil {
		t.Fatalf("NewAuthenticator: %v", err)
	}
	return a
}

// issue issues a token or fails the test.
func issue(t *testing.T, i *Issuer, sa ServiceAccountRef, spec authenticationv1.TokenRequestSpec) string {
	t.Helper()
	token, _, err := i.Issue(sa, spec)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	return token
}

// craft signs arbitrary claims and headers with key, for tokens our Issuer
// would never produce.
func craft(t *testing.T, method jwt.SigningMethod, key crypto.Signer, header map[string]any, c jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing crafted token: %v", err)
	}
	return s
}

// validClaims are the claims the test Issuer would write for testSA at t0.
func validClaims() *claims {
	return &claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    testIssuer,
			Subject:   Username(testSA.Namespace, testSA.Name),
			Audience:  jwt.ClaimStrings{testIssuer},
			ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour)),
			IssuedAt:  jwt.NewNumericDate(t0),
			NotBefore: jwt.NewNumericDate(t0),
			ID:        "crafted",
		},
		Kubernetes: &kubernetesClaims{
			Namespace:      testSA.Namespace,
			ServiceAccount: objectRef{Name: testSA.Name, UID: testSA.UID},
		},
	}
}
