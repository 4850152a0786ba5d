// Package validation holds the server-side defaulting and validation of the
// built-in kinds the registry serves, one file a kind (or a small API group).
//
// Each kind has up to two entry points, referenced from the resource table:
//
//	Default<Kind>(obj)        fills in what kube's v1 defaulters would, and
//	                          only where the user left the field unset;
//	Validate<Kind>(obj, old)  reports the kind's own rules as a
//	                          field.ErrorList, with old nil on create.
//
// Generic ObjectMeta checks (name format, labels, annotations, namespace)
// belong to the store and are not repeated here. The rules follow
// k8s.io/kubernetes' defaults.go and validation.go, which cannot be imported;
// field paths and messages match kube's so kubectl prints the same errors.
package validation
