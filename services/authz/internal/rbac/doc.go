// Package rbac is kubesplit's default authorization engine: Kubernetes RBAC
// (Roles, ClusterRoles and their bindings) evaluated by casbin.
//
// Each role that some binding references becomes one casbin enforcer whose
// policy lines are the role's rules; the model (model.conf) does the
// matching with custom functions that implement kube's globs. Bindings do
// not become policy lines: they become an index from subject (user or
// group) and namespace to the role enforcers that subject holds there, so a
// request consults only the roles bound to its user and groups instead of
// scanning every rule of the cluster.
//
// The engine answers as kube's RBAC authorizer does: Allow when a rule
// matches, NoOpinion otherwise (RBAC never denies), so a chain can ask the
// next engine. Load replaces the whole policy at once; readers see either
// the old policy or the new one, never a mix, and every answer carries the
// revision of the policy it was computed at.
package rbac
