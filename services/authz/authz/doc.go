// Package authz is kubesplit's authz service: it answers
// authorization.k8s.io/v1 SubjectAccessReviews for the aggregator (and for
// any kube-apiserver that uses it as its authorization webhook) with a
// chain of engines chosen by name, as kube-apiserver's
// --authorization-mode does.
//
// Through the aggregator it also serves users the reviews they ask about
// themselves (kubectl auth can-i): SelfSubjectAccessReviews, answered by
// the same chain for the caller the aggregator asserts, and
// SelfSubjectRulesReviews, listed from the engines that can list rules;
// both in JSON or protobuf. It serves the group's discovery too, so the
// aggregator's merged /apis includes it.
//
// The default engine is RBAC (package rbac), fed from the API itself: the
// service watches Roles, ClusterRoles and their bindings through the
// aggregator with its own credentials, like any controller, and rebuilds
// the engine's policy on every change. The others are kube's Node
// authorizer (its graph kept from informers the same way), kube's ABAC,
// a casbin model and policy of the user's own (package casbinpolicy),
// webhooks, AlwaysAllow and AlwaysDeny, chained by --authorization-mode
// or by kube's structured --authorization-config. Every answer carries
// the revision of the policies it was computed at (pkg/authz.RevisionHeader;
// the sum of the engines' own, see policyRevisions), so a cache in front
// of it can tell a stale answer from a fresh one, whichever engine's
// policy changed.
//
// Start runs the service in-process (tests and a fused binary use it);
// the command in the parent directory is a thin wrapper around it.
package authz
