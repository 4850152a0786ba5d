// Package authn is kubesplit's authentication stage: who is making a request.
//
// The stage is one interface, Authenticator, with several implementations
// that are interchangeable: a static token file (NewTokenFile), a Union of
// others, a decision cache (NewCached), and a WebhookClient that asks a remote
// authn service through the TokenReview webhook protocol kube-apiserver uses.
// NewTokenReviewHandler serves any Authenticator as that webhook, and
// WithAuthentication is the HTTP middleware that uses one, so the aggregator's
// chain never knows whether it holds a local authenticator or a remote one.
//
// An Authenticator's three outcomes are kept apart on purpose: recognised (a
// user), not recognised (the token is bad: 401), and could not decide (an
// error: the middleware fails closed with 503 and Retry-After, never a pass).
// Implementations must therefore report an invalid or expired token as "not
// recognised", and keep errors for when they could not look the token up.
package authn
