package serviceaccount

import (
	"crypto"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// Bounds on IssuerConfig.MaxTTL, as kube-apiserver puts them on
// --service-account-max-token-expiration.
const (
	minMaxTTL = time.Hour
	maxMaxTTL = maxExpirationSeconds * time.Second
)

// IssuerConfig configures NewIssuer.
type IssuerConfig struct {
	// Key signs the tokens: RSA (2048 bits or more) or ECDSA (P-256, P-384,
	// P-521), as kube's --service-account-signing-key-file. Required. Any
	// crypto.Signer will do, so the key may stay in an HSM.
	Key crypto.Signer
	// Issuer is the "iss" of every token, as kube's
	// --service-account-issuer (for example "https://kubesplit.local").
	// Required. Relying parties find the discovery document under it.
	Issuer string
	// DefaultAudiences are the audiences of a token whose request names
	// none, normally the API server's own (kube's --api-audiences). Empty
	// means the issuer alone, as kube defaults it.
	DefaultAudiences []string
	// MaxTTL caps the lifetime of every token (kube's
	// --service-account-max-token-expiration); a longer request is silently
	// shortened. Zero means no cap; otherwise between 1h and 2^32 seconds.
	MaxTTL time.Duration
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
}

// Issuer signs service-account tokens.
type Issuer struct {
	cfg IssuerConfig
	alg keyAlgorithm
	kid string
}

// issued is one signed token and the defaulted spec it was signed for.
type issued struct {
	token   string
	expires time.Time
	spec    authenticationv1.TokenRequestSpec
}

// NewIssuer checks cfg and returns an Issuer.
func NewIssuer(cfg IssuerConfig) (*Issuer, error) {
	switch {
	case cfg.Key == nil:
		return nil, fmt.Errorf("%w: issuer needs a signing key", authn.ErrInvalidConfig)
	case cfg.Issuer == "":
		return nil, fmt.Errorf("%w: issuer needs an issuer name", authn.ErrInvalidConfig)
	case cfg.MaxTTL != 0 && (cfg.MaxTTL < minMaxTTL || cfg.MaxTTL > maxMaxTTL):
		return nil, fmt.Errorf("%w: MaxTTL %s must be zero or between %s and %s", authn.ErrInvalidConfig, cfg.MaxTTL, minMaxTTL, maxMaxTTL)
	}
	alg, err := algorithmFor(cfg.Key.Public())
	if err != nil {
		return nil, err
	}
	kid, err := oidc.KeyID(cfg.Key.Public())
	if err != nil {
		return nil, err
	}
	if len(cfg.DefaultAudiences) == 0 {
		cfg.DefaultAudiences = []string{cfg.Issuer}
	}
	cfg.DefaultAudiences = append([]string(nil), cfg.DefaultAudiences...)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Issuer{cfg: cfg, alg: alg, kid: kid}, nil
}

// Issue signs a token for sa as kube's TokenRequest does: the lifetime
// defaults to an hour, may not be under ten minutes (ErrInvalidTokenRequest)
// and is capped at MaxTTL; the audiences default to DefaultAudiences. A
// request bound to an object fails with ErrBindingUnsupported.
func (i *Issuer) Issue(sa ServiceAccountRef, req authenticationv1.TokenRequestSpec) (token string, expiration time.Time, err error) {
	out, err := i.issue(sa, req)
	if err != nil {
		return "", time.Time{}, err
	}
	return out.token, out.expires, nil
}

// issue is Issue, also returning the spec after defaulting and capping,
// which the TokenRequest handler echoes to the client.
func (i *Issuer) issue(sa ServiceAccountRef, req authenticationv1.TokenRequestSpec) (issued, error) {
	if err := sa.validate(); err != nil {
		return issued{}, err
	}
	if ref := req.BoundObjectRef; ref != nil {
		return issued{}, fmt.Errorf("%w: cannot bind a token of %s/%s to %s %q", ErrBindingUnsupported, sa.Namespace, sa.Name, ref.Kind, ref.Name)
	}
	spec := withDefaults(req, i.cfg.DefaultAudiences)
	if err := validateSpec(spec); err != nil {
		return issued{}, err
	}
	ttl := lifetime(spec, i.cfg.MaxTTL)
	seconds := int64(ttl / time.Second)
	spec.ExpirationSeconds = &seconds
	// Whole seconds, so that the expiration returned is exactly the "exp"
	// the token carries.
	now := i.cfg.Now().Truncate(time.Second)
	expires := now.Add(ttl)
	token, err := i.sign(i.claims(sa, spec.Audiences, now, expires))
	if err != nil {
		return issued{}, err
	}
	return issued{token: token, expires: expires, spec: spec}, nil
}

// claims builds the payload kube would write for the same request.
func (i *Issuer) claims(sa ServiceAccountRef, audiences []string, now, expires time.Time) *claims {
	return &claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    i.cfg.Issuer,
			Subject:   Username(sa.Namespace, sa.Name),
			Audience:  jwt.ClaimStrings(append([]string(nil), audiences...)),
			ExpiresAt: jwt.NewNumericDate(expires),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ID:        string(uuid.NewUUID()),
		},
		Kubernetes: &kubernetesClaims{
			Namespace:      sa.Namespace,
			ServiceAccount: objectRef{Name: sa.Name, UID: sa.UID},
		},
	}
}

// sign encodes c with the key's algorithm and id in the header.
func (i *Issuer) sign(c *claims) (string, error) {
	t := jwt.NewWithClaims(jwt.GetSigningMethod(i.alg.alg), c)
	t.Header["kid"] = i.kid
	input, err := t.SigningString()
	if err != nil {
		return "", fmt.Errorf("serviceaccount: encoding token: %w", err)
	}
	return signJWS(i.cfg.Key, i.alg, input)
}

// Issuer is the issuer name ("iss") of the tokens.
func (i *Issuer) Issuer() string { return i.cfg.Issuer }

// PublicKey is the public half of the signing key, for the Authenticator
// and the discovery key set.
func (i *Issuer) PublicKey() crypto.PublicKey { return i.cfg.Key.Public() }
