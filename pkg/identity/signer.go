package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
)

// DefaultTTL is how long an assertion lives unless SignerConfig says
// otherwise: long enough for a request to cross one hop, short enough that
// a captured one is soon useless.
const DefaultTTL = 30 * time.Second

// SignerConfig configures a Signer.
type SignerConfig struct {
	// Key is the aggregator's private key: *ecdsa.PrivateKey on P-256
	// (signs ES256) or ed25519.PrivateKey (signs EdDSA). Required.
	Key crypto.Signer
	// Issuer goes into iss; verifiers accept only their configured issuer.
	// Required.
	Issuer string
	// TTL is the lifetime of an assertion; DefaultTTL if zero.
	TTL time.Duration
	// Now is the clock; time.Now if nil. Tests set it.
	Now func() time.Time
}

// Signer issues identity assertions. It is safe for concurrent use.
type Signer struct {
	key    crypto.Signer
	method jwt.SigningMethod
	kid    string
	issuer string
	ttl    time.Duration
	now    func() time.Time
	// signed holds recent assertions for reads by what they assert,
	// reused while more than half their lifetime is left: a backend then
	// verifies one assertion once, however many requests carry it (see
	// cache). Writes get a fresh one each (see singleUse).
	signed cache[string]
}

// NewSigner validates cfg and returns a Signer.
func NewSigner(cfg SignerConfig) (*Signer, error) {
	if cfg.Key == nil {
		return nil, errors.New("identity: SignerConfig.Key is required")
	}
	if cfg.Issuer == "" {
		return nil, errors.New("identity: SignerConfig.Issuer is required")
	}
	if cfg.TTL < 0 {
		return nil, fmt.Errorf("identity: SignerConfig.TTL %v is negative", cfg.TTL)
	}
	pub, err := newPublicKey(cfg.Key.Public())
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.Key.(*ecdsa.PrivateKey); pub.method == jwt.SigningMethodES256 && !ok {
		// jwt's ES256 signs only with an in-memory key, not an HSM's.
		return nil, fmt.Errorf("identity: an ECDSA key must be *ecdsa.PrivateKey, got %T", cfg.Key)
	}
	s := &Signer{key: cfg.Key, method: pub.method, kid: pub.kid, issuer: cfg.Issuer, ttl: cfg.TTL, now: cfg.Now}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Sign returns an assertion that u makes request r to the backend named
// audience (for example "registry"). r is the outgoing request: its method,
// path and query are bound into the assertion (see requestBinding), and so
// is a digest of its body, which must be readable again through r.GetBody
// (SetHeader sees to it), so sign after the URL and body are final.
func (s *Signer) Sign(u authenticationv1.UserInfo, audience string, r *http.Request) (string, error) {
	if u.Username == "" {
		return "", errors.New("identity: cannot sign for a user without a name")
	}
	if audience == "" {
		return "", errors.New("identity: cannot sign without an audience")
	}
	now := s.now()
	// Only a read without a body is worth a reused assertion, and it is
	// the one request whose key needs no digest of a body.
	reuse := !singleUse(r.Method) && !hasBody(r)
	var key string
	if reuse {
		key = signedKey(u, audience, r)
		if token, ok := s.signed.get(key, now); ok {
			return token, nil
		}
	}
	body, err := bodyDigest(r)
	if err != nil {
		return "", err
	}
	c := &claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   u.Username,
			Audience:  jwt.ClaimStrings{audience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.ttl)),
			// A random id lets audit logs on both sides of a hop name
			// one assertion (reused for the reads it serves), and
			// backends refuse a write's a second time (see spent).
			ID: rand.Text(),
		},
		UID:     u.UID,
		Groups:  u.Groups,
		Extra:   u.Extra,
		Request: requestBinding(r),
		Body:    body,
	}
	t := jwt.NewWithClaims(s.method, c)
	t.Header["kid"] = s.kid
	signed, err := t.SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("identity: signing: %w", err)
	}
	if reuse {
		s.signed.put(key, signed, now.Add(s.ttl/2), now)
	}
	return signed, nil
}

// signedKey names what an assertion asserts: the user whole, the audience
// and the request it is bound to.
func signedKey(u authenticationv1.UserInfo, audience string, r *http.Request) string {
	var b strings.Builder
	for _, part := range []string{audience, requestBinding(r), u.Username, u.UID} {
		b.WriteString(part)
		b.WriteByte(0)
	}
	for _, g := range u.Groups {
		b.WriteString(g)
		b.WriteByte(1)
	}
	for _, k := range slices.Sorted(maps.Keys(u.Extra)) {
		b.WriteString(k)
		b.WriteByte(2)
		for _, v := range u.Extra[k] {
			b.WriteString(v)
			b.WriteByte(1)
		}
	}
	return b.String()
}

// DefaultIssuer is the issuer the aggregator names in its assertions and
// every backend expects, unless both are configured otherwise.
const DefaultIssuer = "kubesplit-aggregator"
