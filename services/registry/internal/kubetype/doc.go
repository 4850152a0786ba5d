// Package kubetype gives the registry Kubernetes' own type-level code for
// the built-in kinds: the v1 defaulters, the validation, the create and
// update strategies (what is reset, when generation moves, which disabled
// fields are dropped, the warnings) and the Table printers, all taken from
// k8s.io/kubernetes at the release matching the k8s.io/* libraries.
//
// The registry stores and serves objects as unstructured JSON, so each call
// converts the object to its Go type in the served version, to kube's
// internal version where the strategies and validation work, and back.
// Nothing of kube's serving path (endpoints, generic registry, storage) is
// used: only functions of the objects.
package kubetype
