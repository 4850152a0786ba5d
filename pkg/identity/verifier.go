package identity

import (
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
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
	// MaxWrites is how many write assertions the verifier remembers at
	// once, each until it expires, to refuse a second use;
	// DefaultMaxWrites if zero. Past it writes are refused (ErrBusy, which
	// Require answers 429) until some expire.
	MaxWrites int
	// Now is the clock; time.Now if nil. Tests set it.
	Now func() time.Time
}

// Verifier checks identity assertions. It is safe for concurrent use.
type Verifier struct {
	keys   map[string]publicKey // by kid
	parser *jwt.Parser
	maxTTL time.Duration
	leeway time.Duration
	now    func() time.Time
	// verified holds read assertions already checked, until they expire,
	// with the request each is bound to (see cache).
	verified cache[verifiedClaims]
	// spent holds the ids of the write assertions accepted, which are
	// good once.
	spent spent
}

// verifiedClaims is what Verify keeps of a checked assertion.
type verifiedClaims struct {
	user    authenticationv1.UserInfo
	binding string
	body    string
}

// NewVerifier validates cfg and returns a Verifier.
func NewVerifier(cfg VerifierConfig) (*Verifier, error) {
	if len(cfg.Keys) == 0 {
		return nil, errors.New("identity: VerifierConfig.Keys needs at least one key")
	}
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("identity: VerifierConfig.Issuer and Audience are required")
	}
	if cfg.Leeway < 0 || cfg.MaxTTL < 0 || cfg.MaxWrites < 0 {
		return nil, fmt.Errorf("identity: negative Leeway %v, MaxTTL %v or MaxWrites %d", cfg.Leeway, cfg.MaxTTL, cfg.MaxWrites)
	}
	v := &Verifier{keys: map[string]publicKey{}, maxTTL: orDefault(cfg.MaxTTL, DefaultMaxTTL),
		leeway: orDefault(cfg.Leeway, DefaultLeeway), spent: spent{max: cfg.MaxWrites}}
	if v.spent.max == 0 {
		v.spent.max = DefaultMaxWrites
	}
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
		jwt.WithLeeway(v.leeway),
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

// Verify checks an assertion presented with request r and returns the user
// it asserts. A write's assertion (any method but GET, HEAD, OPTIONS and
// TRACE) is accepted once only. r's body is checked as it is read: Verify
// replaces r.Body with a reader whose last read fails with ErrWrongBody
// unless the body is the asserted one (see checkBody), so call it before
// anything reads the body. The error wraps ErrMissing, ErrInvalid,
// ErrExpired, ErrNotYetValid, ErrWrongAudience, ErrWrongIssuer,
// ErrWrongRequest, ErrWrongBody, ErrReplayed or ErrBusy.
func (v *Verifier) Verify(token string, r *http.Request) (authenticationv1.UserInfo, error) {
	if token == "" {
		return authenticationv1.UserInfo{}, ErrMissing
	}
	if r == nil {
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: no request to check the assertion against", ErrWrongRequest)
	}
	now := v.now()
	once := singleUse(r.Method)
	if !once {
		if vc, ok := v.verified.get(token, now); ok {
			if vc.binding != requestBinding(r) {
				return authenticationv1.UserInfo{}, fmt.Errorf("%w: issued for another method, path or query", ErrWrongRequest)
			}
			if err := checkBody(r, vc.body); err != nil {
				return authenticationv1.UserInfo{}, err
			}
			return vc.user, nil
		}
	}
	c := &claims{}
	if _, err := v.parser.ParseWithClaims(token, c, v.key); err != nil {
		return authenticationv1.UserInfo{}, classify(err)
	}
	if c.Subject == "" || c.IssuedAt == nil || c.Request == "" || c.Body == "" {
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: no sub, iat, req or body", ErrInvalid)
	}
	if ttl := c.ExpiresAt.Sub(c.IssuedAt.Time); ttl > v.maxTTL {
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: lifetime %v exceeds %v", ErrExpired, ttl, v.maxTTL)
	}
	if c.Request != requestBinding(r) {
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: issued for another method, path or query", ErrWrongRequest)
	}
	if err := checkBody(r, c.Body); err != nil {
		return authenticationv1.UserInfo{}, err
	}
	if once {
		if c.ID == "" {
			return authenticationv1.UserInfo{}, fmt.Errorf("%w: a write's assertion without jti", ErrInvalid)
		}
		// Remembered as long as the parser would accept it, and a second
		// more: exp has whole seconds.
		if err := v.spent.use(c.ID, c.ExpiresAt.Add(v.leeway+time.Second), now); err != nil {
			return authenticationv1.UserInfo{}, err
		}
		return c.user(), nil
	}
	v.verified.put(token, verifiedClaims{user: c.user(), binding: c.Request, body: c.Body}, c.ExpiresAt.Time, now)
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
