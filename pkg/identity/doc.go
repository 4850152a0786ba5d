// Package identity carries a caller's identity from the aggregator to the
// backends as a signed assertion, so that no backend has to trust a header.
//
// After authentication (and impersonation) the aggregator's Signer puts a
// short-lived JWT in the X-Kubesplit-Identity header of the proxied request,
// after stripping every identity header the client sent. A backend mounts
// Require on its API routes: it checks the assertion with the aggregator's
// public keys, puts the user in the request context (pkg/request) and strips the identity
// headers again, so nothing further down can be fooled by them. Anything
// else (no assertion, a forged X-Remote-User, an expired, wrongly signed or
// replayed assertion) gets 401 Unauthorized.
//
// An assertion names the one request it is for: its method, path, query
// and a digest of its body, which the backend checks as the body is read.
// Reads reuse an assertion while it is young; a write gets one of its own,
// which a backend accepts once.
package identity
