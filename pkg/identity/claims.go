package identity

import (
	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
)

// claims is the assertion's payload: the registered claims (iss, sub = user
// name, aud = backend, iat, nbf, exp, jti) and the rest of the user's
// authenticationv1.UserInfo, the one user type of every stage. Its
// ExtraValue is a []string: "extra" is an object of string lists on the
// wire, whichever version of a service signed it.
type claims struct {
	jwt.RegisteredClaims
	UID    string                                 `json:"uid,omitempty"`
	Groups []string                               `json:"groups,omitempty"`
	Extra  map[string]authenticationv1.ExtraValue `json:"extra,omitempty"`
	// Request binds the assertion to one request; see requestBinding.
	Request string `json:"req"`
	// Body is the sha256 of the request's body (of none, for a request
	// without one), unpadded base64url: a backend checks it as the body is
	// read (see checkBody).
	Body string `json:"body"`
}

func (c *claims) user() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: c.Subject, UID: c.UID, Groups: c.Groups, Extra: c.Extra}
}
