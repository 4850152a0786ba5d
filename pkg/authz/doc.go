// Package authz is kubesplit's authorization stage: the Authorizer
// interface the aggregator's chain calls, its local building blocks (Chain,
// AlwaysAllow, AlwaysDeny, SystemMasters, a revision-aware decision cache),
// the middleware that enforces a decision, and the two halves of the remote
// protocol, kube's SubjectAccessReview webhook: a handler that serves any
// Authorizer and a client that is one.
//
// The middleware only ever holds an Authorizer, so the same chain runs with
// the authorizer in process (fused) or behind the webhook (split).
//
// Every answer carries the policy revision it was computed at. The webhook
// sends it in the X-Kubesplit-Policy-Revision response header, which standard
// SubjectAccessReview clients ignore, so a real kube-apiserver can still use
// the handler as its authorization webhook. The cache uses the revision to
// keep a lagging authz replica from putting a revoked allow back.
package authz
