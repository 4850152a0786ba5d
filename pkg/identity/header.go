package identity

import (
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Header carries the assertion from the aggregator to a backend.
const Header = "X-Kubesplit-Identity"

// identityPrefixes name every header family that claims or requests an
// identity: the front-proxy headers kube's request-header authenticator
// trusts (X-Remote-User, X-Remote-Group, X-Remote-Uid, X-Remote-Extra-*)
// and the impersonation headers (Impersonate-User, -Group, -Uid, -Extra-*).
// Whole prefixes are stripped so that a variant a backend might trust one
// day is covered too. Lower case, for a case-insensitive match.
var identityPrefixes = []string{"x-remote-", "impersonate-"}

// StripIdentityHeaders deletes from h every header that claims an identity:
// X-Remote-*, Impersonate-* and Header itself. The aggregator calls it (via
// SetHeader) before forwarding, and Require after verifying, so that only
// the signed assertion ever speaks for the caller.
func StripIdentityHeaders(h http.Header) {
	for name := range h {
		lower := strings.ToLower(name)
		if lower == strings.ToLower(Header) || hasAnyPrefix(lower, identityPrefixes) {
			delete(h, name)
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// SetHeader strips every identity header the client sent on r and sets a
// fresh assertion that u makes r to audience. Call it on the outgoing
// request once its URL and body are final (in a reverse proxy's Rewrite or
// Director). A body that cannot be read again is read into memory first
// (see BufferBody), up to MaxBodyBytes; past that it is an error wrapping
// ErrBodyTooLarge, and r's body is spent: a proxy that wants to answer 413
// buffers it itself before.
func (s *Signer) SetHeader(r *http.Request, u authenticationv1.UserInfo, audience string) error {
	StripIdentityHeaders(r.Header)
	if err := BufferBody(r, MaxBodyBytes); err != nil {
		return fmt.Errorf("identity: asserting %q to %q: %w", u.Username, audience, err)
	}
	token, err := s.Sign(u, audience, r)
	if err != nil {
		return fmt.Errorf("identity: asserting %q to %q: %w", u.Username, audience, err)
	}
	r.Header.Set(Header, token)
	return nil
}
