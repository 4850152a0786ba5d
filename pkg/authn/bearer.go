package authn

import (
	"errors"
	"net/http"
	"strings"
)

// errMalformedAuthorization is why a present but unusable Authorization
// header is refused rather than treated as no credentials: a client that
// meant to authenticate must not silently become anonymous.
var errMalformedAuthorization = errors.New("malformed Authorization header")

// bearerToken reads the token of an "Authorization: Bearer <token>" header.
// present is false when the request carries no Authorization header at all.
// The scheme is matched case-insensitively (RFC 7235); anything else — other
// schemes, an empty token, extra spaces, several headers — is an error.
func bearerToken(h http.Header) (token string, present bool, err error) {
	values := h.Values("Authorization")
	switch len(values) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, errMalformedAuthorization
	}
	scheme, token, found := strings.Cut(values[0], " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" ||
		strings.ContainsAny(token, " \t") {
		return "", true, errMalformedAuthorization
	}
	return token, true, nil
}
