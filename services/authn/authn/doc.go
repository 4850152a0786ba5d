// Package authn is kubesplit's authn service: it answers the aggregator's
// TokenReviews (static tokens, service-account tokens, an optional OIDC
// provider), issues service-account tokens (TokenRequest), tells a caller
// who it is (SelfSubjectReview, kubectl auth whoami) and publishes its
// issuer's OpenID discovery documents. Start runs it in-process, so tests
// and a fused binary use the same code as the command.
package authn
