package registry

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// loopbackUser is who the registry's own bootstrap and controllers act as
// when they call its API, as kube-apiserver's loopback client is.
var loopbackUser = authenticationv1.UserInfo{Username: "system:apiserver", Groups: []string{"system:masters", "system:authenticated"}}

// trust decides whom the registry believes: nobody needs to prove anything
// in insecure mode; otherwise the aggregator's keys and a key of the
// registry's own, made at start, that signs its loopback calls.
type trust struct {
	verifier *identity.Verifier // nil in insecure mode
	loopback *identity.Signer
}

func newTrust(cfg Config) (*trust, error) {
	if cfg.InsecureAllowUnauthenticated {
		return &trust{}, nil
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	signer, err := identity.NewSigner(identity.SignerConfig{Key: priv, Issuer: cfg.IdentityIssuer})
	if err != nil {
		return nil, err
	}
	keys := append(append([]crypto.PublicKey{}, cfg.IdentityKeys...), pub)
	verifier, err := identity.NewVerifier(identity.VerifierConfig{Keys: keys, Issuer: cfg.IdentityIssuer, Audience: Audience})
	if err != nil {
		return nil, err
	}
	return &trust{verifier: verifier, loopback: signer}, nil
}

// require guards h: only requests with a valid assertion reach it.
func (t *trust) require(h http.Handler) http.Handler {
	if t.verifier == nil {
		return h
	}
	return identity.Require(t.verifier)(h)
}

// sign makes a loopback client configuration assert the registry's own
// identity on every request.
func (t *trust) sign(cfg *rest.Config) *rest.Config {
	if t.loopback != nil {
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return t.loopback.Transport(rt, loopbackUser, Audience)
		}
	}
	return cfg
}
