package identity

import "github.com/golang-jwt/jwt/v5"

// claims is the assertion's payload: the registered claims (iss, sub = user
// name, aud = backend, iat, nbf, exp, jti) and the rest of the User.
type claims struct {
	jwt.RegisteredClaims
	UID    string              `json:"uid,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
	// Request binds the assertion to one request; see requestBinding.
	Request string `json:"req"`
	// Body is the sha256 of the request's body (of none, for a request
	// without one), unpadded base64url: a backend checks it as the body is
	// read (see checkBody).
	Body string `json:"body"`
}

func (c *claims) user() User {
	return User{Name: c.Subject, UID: c.UID, Groups: c.Groups, Extra: c.Extra}
}
