// Package escalation is the RBACEscalation admission plugin: nobody may
// grant, through a Role, a ClusterRole or a binding, permissions they do not
// hold themselves, unless they are allowed to escalate (roles) or bind
// (bindings).
//
// In kube-apiserver this check lives in the RBAC registry's storage
// (pkg/registry/rbac/*/policybased), which resolves the writer's own rules
// and compares them with the rules being granted. Here the registry holds no
// authorizer, and a SubjectAccessReview never returns a user's rules, so the
// plugin asks instead: one SubjectAccessReview per (verb, API group,
// resource, resource name) and per (verb, non-resource URL) of the granted
// rules, through the aggregator, as the writing user. Wildcards are asked as
// "*", which kube's RBAC matches only with a rule holding the wildcard: the
// answer is exactly "the writer holds the wildcard", as kube's Covers
// compares it.
package escalation
