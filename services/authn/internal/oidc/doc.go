// Package oidc speaks the parts of OpenID Connect kubesplit needs: the
// discovery document and JSON Web Key Set formats (which the
// service-account issuer publishes), and an Authenticator for the ID tokens
// of an external provider, configured as kube-apiserver's --oidc-* flags.
//
// The Authenticator fetches the provider's discovery document and keys
// itself, lazily, and again when a token names a key it does not know (a
// rotation), at most once per refresh interval. A token of another issuer
// is not recognised without any fetch, so a Union can pass it on cheaply;
// a provider that cannot be reached is an error, so callers fail closed.
package oidc
