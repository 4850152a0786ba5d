package identity

import (
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults for VerifierConfig.
const (
	// DefaultLeeway absorbs clock skew between the aggregator's host and
	// the backend's: an assertion is signed with nbf = now, so without it
	// a backend whose clock runs a little behind would reject fresh ones.
	DefaultLeeway = 5 * time.Second
	// DefaultMaxTTL bounds the lifetime a verifier accepts, whatever the
	// signer was configured with.
	DefaultMaxTTL = 5 * time.Minute
)

// VerifierConfig configures a Verifier.
type VerifierConfig struct {
	// Keys are the aggregator's public keys (*ecdsa.PublicKey on P-256 or
	// ed25519.PublicKey). Several may be given during a key rotation: an
	// assertion's kid picks one. At least one is required.
	Keys []crypto.PublicKey
	// Issuer is the only iss accepted. Required.
	Issuer string
	// Audience is this backend's name (for example "registry"); only
	// assertions issued for it are accepted. Required.
	Audience string
	// Leeway is the clock skew tolerated on exp, nbf and iat; DefaultLeeway
	// if zero. Two hosts' clocks never agree exactly, so there is no way to
	// ask for none.
	Leeway time.Duration
	// MaxTTL is the longest lifetime (exp - iat) accepted; DefaultMaxTTL if
	// zero. It keeps a misconfigured signer from minting long-lived
	// assertions.
	MaxTTL time.Duration
	// Now is the clock; time.Now if nil. Tests set it.
	Now func() time.Time
}

// Verifier checks identity assertions. It is safe for concurrent use.
type Verifier struct {
	keys   map[string]publicKey // by kid
	parser *jwt.Parser
	maxTTL time.Duration
	now    func() time.Time
	// verified holds assertions already checked, until they expire, with
	// the request each is bound to (see cache).
	verified cache[verifiedClaims]
}

// verifiedClaims is what Verify keeps of a checked assertion.
type verifiedClaims struct {
	user    User
	binding string
}

// NewVerifier validates cfg and returns a Verifier.
func NewVerifier(cfg VerifierConfig) (*Verifier, error) {
	if len(cfg.Keys) == 0 {
		return nil, errors.New("identity: VerifierConfig.Keys needs at least one key")
	}
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("identity: VerifierConfig.Issuer and Audience are required")
	}
	if cfg.Leeway < 0 || cfg.MaxTTL < 0 {
		return nil, fmt.Errorf("identity: negative Leeway %v or MaxTTL %v", cfg.Leeway, cfg.MaxTTL)
	}
	v := &Verifier{keys: map[string]publicKey{}, maxTTL: orDefault(cfg.MaxTTL, DefaultMaxTTL)}
	var methods []string
	for i, k := range cfg.Keys {
		pk, err := newPublicKey(k)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i, err)
		}
		v.keys[pk.kid] = pk
		methods = append(methods, pk.method.Alg())
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	v.now = now
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(methods), // never "none", never HS256
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithLeeway(orDefault(cfg.Leeway, DefaultLeeway)),
		jwt.WithTimeFunc(now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	)
	return v, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Verify checks an assertion presented with request r and returns the User
// it asserts. The error wraps ErrMissing, ErrInvalid, ErrExpired,
// ErrNotYetValid, ErrWrongAudience, ErrWrongIssuer or ErrWrongRequest.
func (v *Verifier) Verify(token string, r *http.Request) (User, error) {
	if token == "" {
		return User{}, ErrMissing
	}
	if r == nil {
		return User{}, fmt.Errorf("%w: no request to check the assertion against", ErrWrongRequest)
	}
	now := v.now()
	if vc, ok := v.verified.get(token, now); ok {
		if vc.binding != requestBinding(r) {
			return User{}, fmt.Errorf("%w: issued for another method, path or query", ErrWrongRequest)
		}
		return vc.user, nil
	}
	c := &claims{}
	if _, err := v.parser.ParseWithClaims(token, c, v.key); err != nil {
		return User{}, classify(err)
	}
	if c.Subject == "" || c.IssuedAt == nil || c.Request == "" {
		return User{}, fmt.Errorf("%w: no sub, iat or req", ErrInvalid)
	}
	if ttl := c.ExpiresAt.Sub(c.IssuedAt.Time); ttl > v.maxTTL {
		return User{}, fmt.Errorf("%w: lifetime %v exceeds %v", ErrExpired, ttl, v.maxTTL)
	}
	if c.Request != requestBinding(r) {
		return User{}, fmt.Errorf("%w: issued for another method, path or query", ErrWrongRequest)
	}
	v.verified.put(token, verifiedClaims{user: c.user(), binding: c.Request}, c.ExpiresAt.Time, now)
	return c.user(), nil
}

// key picks the verification key by kid and insists that the token's alg
// is that key's one algorithm. The parser's method list already refuses
// others; this also stops an EdDSA token from being checked against an
// ECDSA key's kid when both kinds are configured.
func (v *Verifier) key(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	k, ok := v.keys[kid]
	if !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	if t.Method.Alg() != k.method.Alg() {
		return nil, fmt.Errorf("alg %q does not match key %q (%s)", t.Method.Alg(), kid, k.method.Alg())
	}
	return k.key, nil
}

// classify maps a jwt error to one sentinel. Signature and format problems
// come first: the parser checks claims only after the signature, so a
// claim error means the assertion really is the aggregator's.
func classify(err error) error {
	var s error
	switch {
	case !errors.Is(err, jwt.ErrTokenInvalidClaims):
		s = ErrInvalid
	case errors.Is(err, jwt.ErrTokenExpired):
		s = ErrExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		s = ErrNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		s = ErrWrongAudience
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		s = ErrWrongIssuer
	default:
		s = ErrInvalid
	}
	return fmt.Errorf("%w: %w", s, err)
}
