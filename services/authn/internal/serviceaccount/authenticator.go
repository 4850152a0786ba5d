package serviceaccount

import (
	"context"
	"crypto"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// clockSkew is how far exp, nbf and iat may be off; kube allows a minute,
// the default of the JOSE library it checks tokens with.
const clockSkew = time.Minute

// AuthenticatorConfig configures NewAuthenticator.
type AuthenticatorConfig struct {
	// Keys are the public keys tokens may be signed with, as kube's
	// --service-account-key-file (several during a key rotation).
	// Required.
	Keys []crypto.PublicKey
	// Issuers are the "iss" values accepted, as kube's repeated
	// --service-account-issuer. Required. A token from another issuer is
	// not recognised, so a Union can try its next authenticator.
	Issuers []string
	// APIAudiences are the audiences a token must have one of when the
	// caller did not ask for others (authn.WithAudiences), as kube's
	// --api-audiences. Empty means the issuers, as kube defaults it.
	APIAudiences []string
	// Lookup finds the account a token names. Required: a token of a
	// deleted account must stop working.
	Lookup Lookup
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
}

// Authenticator recognises the service-account tokens of our issuers.
type Authenticator struct {
	cfg    AuthenticatorConfig
	keys   map[string]verificationKey
	parser *jwt.Parser
}

var _ authn.Authenticator = (*Authenticator)(nil)

// verificationKey is one public key and the algorithm it signs with.
type verificationKey struct {
	pub crypto.PublicKey
	alg string
}

// NewAuthenticator checks cfg and returns an Authenticator.
func NewAuthenticator(cfg AuthenticatorConfig) (*Authenticator, error) {
	switch {
	case len(cfg.Keys) == 0:
		return nil, fmt.Errorf("%w: service account authenticator needs a key", authn.ErrInvalidConfig)
	case len(cfg.Issuers) == 0 || slices.Contains(cfg.Issuers, ""):
		return nil, fmt.Errorf("%w: service account authenticator needs non-empty issuers", authn.ErrInvalidConfig)
	case cfg.Lookup == nil:
		return nil, fmt.Errorf("%w: service account authenticator needs a lookup", authn.ErrInvalidConfig)
	}
	keys, algs, err := verificationKeys(cfg.Keys)
	if err != nil {
		return nil, err
	}
	cfg.Issuers = slices.Clone(cfg.Issuers)
	if len(cfg.APIAudiences) == 0 {
		cfg.APIAudiences = cfg.Issuers
	}
	cfg.APIAudiences = slices.Clone(cfg.APIAudiences)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(algs),
		jwt.WithLeeway(clockSkew),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	)
	return &Authenticator{cfg: cfg, keys: keys, parser: parser}, nil
}

// verificationKeys indexes keys by key id and lists their algorithms.
func verificationKeys(pubs []crypto.PublicKey) (map[string]verificationKey, []string, error) {
	keys := map[string]verificationKey{}
	var algs []string
	for _, pub := range pubs {
		ka, err := algorithmFor(pub)
		if err != nil {
			return nil, nil, err
		}
		kid, err := oidc.KeyID(pub)
		if err != nil {
			return nil, nil, err
		}
		keys[kid] = verificationKey{pub: pub, alg: ka.alg}
		if !slices.Contains(algs, ka.alg) {
			algs = append(algs, ka.alg)
		}
	}
	return keys, algs, nil
}

// AuthenticateToken recognises a token signed by one of the keys, from one
// of the issuers, for one of the wanted audiences, within its lifetime,
// whose account still exists with the uid it was issued for. Anything else
// is not recognised; only a failed lookup is an error, because then the
// account might or might not exist.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authn.Response, bool, error) {
	if !a.fromOurIssuer(token) {
		return nil, false, nil
	}
	c := &claims{}
	if _, err := a.parser.ParseWithClaims(token, c, a.keyFor); err != nil {
		return nil, false, nil
	}
	audiences := a.audiences(ctx, c.Audience)
	sa, ok := c.serviceAccount()
	if len(audiences) == 0 || !ok {
		return nil, false, nil
	}
	uid, found, err := a.cfg.Lookup.ServiceAccount(ctx, sa.Namespace, sa.Name)
	if err != nil {
		return nil, false, fmt.Errorf("serviceaccount: looking up %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	// A different uid is a deleted account recreated under the same name:
	// the new account must not inherit the old one's tokens.
	if !found || uid != sa.UID {
		return nil, false, nil
	}
	return &authn.Response{User: userInfo(sa, c.ID), Audiences: audiences}, true, nil
}

// fromOurIssuer reads the issuer of token without checking anything else,
// so that tokens of other authenticators are passed over cheaply and a
// non-JWT is not recognised at all.
func (a *Authenticator) fromOurIssuer(token string) bool {
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return false
	}
	return slices.Contains(a.cfg.Issuers, c.Issuer)
}

// keyFor picks the key a token names in its "kid" header, which must sign
// with the algorithm the token claims. A token without a kid (kube's before
// 1.16) may be signed by any key of its algorithm; an unknown kid matches
// none, rather than falling back to trying them all.
func (a *Authenticator) keyFor(t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	kid, hasKid := t.Header["kid"]
	if hasKid {
		id, _ := kid.(string)
		if k, ok := a.keys[id]; ok && k.alg == alg {
			return k.pub, nil
		}
		return nil, fmt.Errorf("serviceaccount: no %s key with id %q", alg, id)
	}
	var set jwt.VerificationKeySet
	for _, k := range a.keys {
		if k.alg == alg {
			set.Keys = append(set.Keys, k.pub)
		}
	}
	return set, nil
}

// audiences returns the audiences of the token that the caller wants: those
// asked for in ctx, else the API's own. Empty means the token is not for us.
func (a *Authenticator) audiences(ctx context.Context, tokenAudiences []string) []string {
	want, ok := authn.AudiencesFrom(ctx)
	if !ok {
		want = a.cfg.APIAudiences
	}
	var out []string
	for _, w := range want {
		if slices.Contains(tokenAudiences, w) {
			out = append(out, w)
		}
	}
	return out
}
