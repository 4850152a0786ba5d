package oidc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// Defaults of Config.
const (
	defaultTimeout         = 10 * time.Second
	defaultRefreshInterval = 10 * time.Second
	// clockSkew is how far exp, nbf and iat may be off.
	clockSkew = time.Minute
)

// Config configures NewAuthenticator. Fields follow kube-apiserver's
// --oidc-* flags.
type Config struct {
	// IssuerURL is the provider (--oidc-issuer-url): tokens' "iss" must be
	// exactly this, and the discovery document is fetched from under it.
	// Required; an https URL without query or fragment.
	IssuerURL string
	// ClientID (--oidc-client-id) must be among a token's audiences.
	// Required.
	ClientID string
	// UsernameClaim (--oidc-username-claim) holds the user name; empty
	// means "sub". When it is "email", an email_verified claim, if present,
	// must be true.
	UsernameClaim string
	// UsernamePrefix (--oidc-username-prefix) is put before every user
	// name, so provider users cannot pose as system users. Empty means
	// IssuerURL + "#", except for the "email" claim (no prefix); "-" means
	// none.
	UsernamePrefix string
	// GroupsClaim (--oidc-groups-claim) holds the groups, a string or an
	// array of strings. Empty means no groups.
	GroupsClaim string
	// GroupsPrefix (--oidc-groups-prefix) is put before every group.
	GroupsPrefix string
	// RequiredClaims (--oidc-required-claim) must be present in a token
	// with exactly these string values.
	RequiredClaims map[string]string
	// SigningAlgs (--oidc-signing-algs) are the algorithms accepted; empty
	// means RS256, as kube defaults it.
	SigningAlgs []string
	// APIAudiences are the audiences a recognised token stands for. The
	// provider's tokens are for ClientID, not for an API audience, so when
	// set, a caller asking for other audiences gets "not recognised", as
	// kube's audience-agnostic wrapper does. Empty means audience-agnostic.
	APIAudiences []string
	// HTTPClient fetches the discovery document and keys; its transport
	// carries the provider's CA (--oidc-ca-file). Nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds one fetch of the documents; zero means 10s.
	Timeout time.Duration
	// RefreshInterval is the least time between two fetches of the keys,
	// so that tokens naming unknown keys cannot make us hammer the
	// provider; zero means 10s.
	RefreshInterval time.Duration
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
}

// Authenticator recognises the ID tokens of one OpenID Connect provider.
type Authenticator struct {
	cfg            Config
	usernamePrefix string
	keys           *remoteKeySet
	parser         *jwt.Parser
}

var _ authn.Authenticator = (*Authenticator)(nil)

// NewAuthenticator checks cfg and returns an Authenticator. Nothing is
// fetched until the first token of the issuer arrives, so the provider
// need not be up when we start.
func NewAuthenticator(cfg Config) (*Authenticator, error) {
	if err := validate(&cfg); err != nil {
		return nil, err
	}
	keys := &remoteKeySet{
		issuer: cfg.IssuerURL, client: cfg.HTTPClient, timeout: cfg.Timeout,
		minInterval: cfg.RefreshInterval, now: cfg.Now,
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(cfg.SigningAlgs),
		jwt.WithIssuer(cfg.IssuerURL),
		jwt.WithAudience(cfg.ClientID),
		jwt.WithLeeway(clockSkew),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	)
	return &Authenticator{cfg: cfg, usernamePrefix: usernamePrefix(cfg), keys: keys, parser: parser}, nil
}

// validate checks cfg and fills in its defaults.
func validate(cfg *Config) error {
	if err := CheckIssuerURL(cfg.IssuerURL); err != nil {
		return fmt.Errorf("%w: oidc issuer: %w", authn.ErrInvalidConfig, err)
	}
	switch {
	case cfg.ClientID == "":
		return fmt.Errorf("%w: oidc needs a client id", authn.ErrInvalidConfig)
	case cfg.Timeout < 0 || cfg.RefreshInterval < 0:
		return fmt.Errorf("%w: oidc timeout and refresh interval must not be negative", authn.ErrInvalidConfig)
	}
	if len(cfg.SigningAlgs) == 0 {
		cfg.SigningAlgs = []string{"RS256"}
	}
	for _, alg := range cfg.SigningAlgs {
		if !slices.Contains([]string{"RS256", "ES256", "ES384", "ES512"}, alg) {
			return fmt.Errorf("%w: oidc signing algorithm %q not supported", authn.ErrInvalidConfig, alg)
		}
	}
	cfg.SigningAlgs = slices.Clone(cfg.SigningAlgs)
	cfg.APIAudiences = slices.Clone(cfg.APIAudiences)
	if cfg.UsernameClaim == "" {
		cfg.UsernameClaim = "sub"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.RefreshInterval == 0 {
		cfg.RefreshInterval = defaultRefreshInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// usernamePrefix is the prefix kube derives from the flags.
func usernamePrefix(cfg Config) string {
	switch {
	case cfg.UsernamePrefix == "-":
		return ""
	case cfg.UsernamePrefix != "":
		return cfg.UsernamePrefix
	case cfg.UsernameClaim == "email":
		return ""
	}
	return cfg.IssuerURL + "#"
}

// AuthenticateToken recognises a token of the provider, signed by one of
// its current keys, for ClientID, within its lifetime, whose claims map to
// a user. A token of another issuer is passed over without any fetch; a
// provider that cannot be reached when its keys are needed is an error.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authn.Response, bool, error) {
	audiences, ok := a.audiences(ctx)
	if !ok || !a.fromIssuer(token) {
		return nil, false, nil
	}
	var c jwt.MapClaims
	_, err := a.parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) { return a.keyFor(ctx, t) })
	switch {
	case errors.Is(err, ErrProviderUnavailable):
		return nil, false, err
	case err != nil:
		return nil, false, nil
	}
	u, err := a.userFrom(c)
	if err != nil {
		return nil, false, nil
	}
	return &authn.Response{User: u, Audiences: audiences}, true, nil
}

// fromIssuer reads the token's issuer without checking anything else.
func (a *Authenticator) fromIssuer(token string) bool {
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return false
	}
	return c.Issuer == a.cfg.IssuerURL
}

// audiences are the audiences a recognised token will stand for, and false
// when the caller asked only for audiences this authenticator does not
// serve.
func (a *Authenticator) audiences(ctx context.Context) ([]string, bool) {
	want, asked := authn.AudiencesFrom(ctx)
	if len(a.cfg.APIAudiences) == 0 {
		return nil, true
	}
	if !asked {
		return slices.Clone(a.cfg.APIAudiences), true
	}
	var out []string
	for _, w := range want {
		if slices.Contains(a.cfg.APIAudiences, w) {
			out = append(out, w)
		}
	}
	return out, len(out) > 0
}

// keyFor returns the provider keys that may have signed t.
func (a *Authenticator) keyFor(ctx context.Context, t *jwt.Token) (any, error) {
	raw, hasKid := t.Header["kid"]
	kid, isString := raw.(string)
	if hasKid && !isString {
		return nil, fmt.Errorf("oidc: kid header is a %T", raw)
	}
	keys, err := a.keys.keysFor(ctx, kid, t.Method.Alg())
	if err != nil {
		return nil, err
	}
	set := jwt.VerificationKeySet{}
	for _, k := range keys {
		set.Keys = append(set.Keys, k)
	}
	return set, nil
}
