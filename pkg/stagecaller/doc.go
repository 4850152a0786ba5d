// Package stagecaller lets callers from outside kubesplit use a stage's
// webhook endpoints (authn's TokenReview, authz's SubjectAccessReview,
// admission's AdmissionReview), so that a real kube-apiserver can use
// kubesplit's stages as its webhooks.
//
// Inside kubesplit a stage is called with a signed identity assertion (see
// package identity), and that path is unchanged. Beside it, a caller
// without an assertion may present, over TLS only, a client certificate
// signed by the stage's --client-ca-file (CN the user, O the groups) or a
// bearer token the API authenticates (TokenReview). It is then authorized
// as kube authorizes webhook callers, by a SubjectAccessReview through the
// API for the request itself: create on tokenreviews
// (authentication.k8s.io) or subjectaccessreviews (authorization.k8s.io),
// and for admission, whose paths name no resource, the verb post on the
// non-resource URL (/admission/v1/mutating, /admission/v1/validating), as
// kube's delegated authorization checks a webhook server's paths. A caller
// that is unknown gets 401, one without access 403, and an API that cannot
// answer 503: never a pass.
package stagecaller
