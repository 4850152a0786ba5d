// Package validation holds the server-side defaulting and validation of
// APIServices, whose type lives outside k8s.io/kubernetes, and the CRD
// bits the registry's own serving needs (what a delete sets, the schema
// in OpenAPI form). Every other built-in kind, CustomResourceDefinitions
// included, is defaulted and validated by kube's own code (package
// kubetype).
//
// Each kind has up to two entry points, referenced from the resource table:
//
//	Default<Kind>(obj)        fills in what kube's v1 defaulters would, and
//	                          only where the user left the field unset;
//	Validate<Kind>(obj, old)  reports the kind's own rules as a
//	                          field.ErrorList, with old nil on create.
//
// Generic ObjectMeta checks (name format, labels, annotations, namespace)
// belong to the store and are not repeated here. Field paths and messages
// match kube's so kubectl prints the same errors.
package validation
