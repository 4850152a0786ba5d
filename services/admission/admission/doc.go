// Package admission is kubesplit's admission service: kube-apiserver's
// built-in admission plugins (NamespaceLifecycle, LimitRanger,
// ServiceAccount, ResourceQuota, the webhooks and ValidatingAdmissionPolicy
// written here, kube's own plugins run through internal/kubeplugin, and
// kubesplit's RBACEscalation; see plugins.go) served as two AdmissionReview
// webhooks, mutating then validating, that the registry calls in its write
// path.
//
// NewLocal builds the plugins, their informers and their background work
// (under Leases) in process: the fused binary hands its Mutating and
// Validating admitters to the registry directly. Start serves the same
// Local over HTTP for the split stack, so both paths run the same code.
package admission
