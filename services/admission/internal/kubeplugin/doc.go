// Package kubeplugin runs Kubernetes' own admission plugins
// (k8s.io/kubernetes/plugin/pkg/admission/...) as the admission service's
// admitters, so that kubesplit admits with kube's code rather than a copy
// of it.
//
// Kube's plugins implement k8s.io/apiserver's admission.Interface on kube's
// internal types. For each request the adapter decodes the admitted JSON
// into the served version's Go type, defaults it and converts it to the
// internal version through legacyscheme (a custom resource, which has no
// Go type, stays unstructured in its served version, as in kube), runs the
// plugin's Admit (mutating half) or Validate (validating half), and
// answers with what a user of kube-apiserver would see: the plugin's
// changes as a JSON patch, its errors as the denial's Status unchanged,
// its warnings and audit annotations. Plugins are built with kube's
// initializers (informers, typed and dynamic clients, a REST mapper,
// feature gates, an authorizer asking SubjectAccessReviews, the service's
// closing as the drained notification) and checked with their
// ValidateInitialization, as kube-apiserver does at start-up.
// MutatingAdmissionPolicy, whose rules follow the cluster's policies, is
// built by NewMutatingPolicyPhases rather than from the static table.
package kubeplugin
