// Package serviceaccount issues and checks Kubernetes service-account tokens
// the way kube-apiserver does, so that kubesplit's tokens work wherever
// kube's do (kubectl create token, projected volumes, OIDC federation) and a
// relying party cannot tell them apart.
//
// An Issuer signs tokens (TokenRequest, POST .../serviceaccounts/<name>/token,
// served by NewTokenRequestHandler). An Authenticator checks them for the
// authn stage: signature, issuer, audience, lifetime, and that the account
// still exists with the uid the token was issued for, through a Lookup (an
// informer cache, NewInformerLookup, or a direct read, NewClientLookup).
// NewDiscoveryHandler publishes the issuer's OpenID discovery document and
// key set (in the formats of package oidc) so that other parties can check
// the tokens without asking us.
//
// Unlike kube, tokens bound to a pod, node or secret (boundObjectRef) are
// neither issued nor accepted yet: checking such a binding needs the bound
// object, which this service cannot read today, and a binding nobody checks
// would be a false promise.
package serviceaccount
