// Package webhook is the HTTP plumbing shared by kubesplit's review
// webhooks (TokenReview, SubjectAccessReview, AdmissionReview), on both
// sides of a hop. Client POSTs one JSON review and decodes the answer,
// failing closed: no redirect, no oversized, non-2xx, late or malformed
// answer is ever decoded, each is a sentinel error the stage packages wrap
// into their own. DecodeRequest and WriteJSON are the server side: method,
// media type, size and JSON checks answered with the Status kube-apiserver
// would give. Codec is the same server side for the review endpoints
// client-go's typed clients call too: it also reads and answers YAML and
// protobuf, as the request's Content-Type and Accept say.
// NewCAClient and ServiceURL are how a webhook configured through the API
// (admission webhooks, CRD conversion) is reached: its caBundle and its
// service's address.
package webhook
