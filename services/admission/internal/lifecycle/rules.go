package lifecycle

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests the plugin looks at: creates of anything in a
// namespace (subresources too: a binding, an eviction or a token request
// is new content as well) while the namespace is terminating, and deletes
// of namespaces. Updates and deletes are how a terminating namespace
// empties, so they are never refused. The registry checks the phase in its
// own storage, so creates in an active namespace cost no round trip; it
// refuses creates in a missing namespace itself.
func Rules() admission.Rules {
	creates := plugin.Namespaced(plugin.Rule("*", []string{"*/*"}, admissionregistrationv1.Create))
	creates.Namespace = &admission.NamespaceCondition{Phases: []string{string(corev1.NamespaceTerminating)}}
	return admission.Rules{Validating: []admission.Rule{
		creates,
		// isNamespace also goes by kind: any subresource of namespaces.
		plugin.Rule("", []string{"namespaces/*"}, admissionregistrationv1.Delete),
	}}
}
