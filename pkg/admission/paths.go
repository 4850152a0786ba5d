package admission

// The paths kubesplit's admission service serves its two phases on. They
// are two webhooks, as a mutating and a validating webhook configuration
// are in kube: the registry calls the mutating one, applies its patch,
// validates the object itself, then calls the validating one on what it
// will store.
const (
	MutatingPath   = "/admission/v1/mutating"
	ValidatingPath = "/admission/v1/validating"
)

// The identity the registry asserts when it calls the admission service:
// it signs with a key of its own (not the aggregator's), under this issuer
// and audience, so admission trusts the registry and nobody else.
const (
	RegistryIssuer = "kubesplit-registry"
	Audience       = "admission"
	RegistryUser   = "system:kubesplit:registry"
)
