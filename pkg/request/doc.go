// Package request holds what kubesplit's stages learn about a request and
// hand on to later ones through its context: who makes it (WithUser), what
// it is about (WithInfo) and the id audit records it under (WithAuditID).
//
// There is one place for each, so that whichever stage fills it (the
// aggregator's authentication filter, or a backend's check of the
// aggregator's signed assertion) every later stage reads it the same way,
// as kube's k8s.io/apiserver/pkg/endpoints/request does for kube's
// handlers. Each value has an unexported key, so only these functions set
// or read it.
package request
