package oidc

// DiscoveryPath is where an OpenID provider serves its configuration,
// relative to its issuer URL (OpenID Connect Discovery 1.0, section 4).
const DiscoveryPath = "/.well-known/openid-configuration"

// OpenIDConfiguration is an OpenID provider's discovery document, with the
// members kube publishes for its service-account issuer and reads from
// other providers.
type OpenIDConfiguration struct {
	// Issuer is the "iss" of the provider's tokens.
	Issuer string `json:"issuer"`
	// JWKSURI is where the provider's key set is.
	JWKSURI string `json:"jwks_uri"`
	// ResponseTypesSupported are the OAuth response types; a provider that
	// only issues tokens directly, as kube does, says ["id_token"].
	ResponseTypesSupported []string `json:"response_types_supported"`
	// SubjectTypesSupported is ["public"] when the subject is the same for
	// every relying party.
	SubjectTypesSupported []string `json:"subject_types_supported"`
	// IDTokenSigningAlgValuesSupported are the algorithms of the keys.
	IDTokenSigningAlgValuesSupported []string `json:"id_token_signing_alg_values_supported"`
}
