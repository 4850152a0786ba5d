package lifecycle

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests the plugin looks at: creates of anything in a
// namespace (subresources too: a binding, an eviction or a token request
// is new content as well), and deletes of namespaces. Updates and deletes
// are how a terminating namespace empties, so they are never refused.
func Rules() admission.Rules {
	return admission.Rules{Validating: []admission.Rule{
		plugin.Namespaced(plugin.Rule("*", []string{"*/*"}, admissionregistrationv1.Create)),
		// isNamespace also goes by kind: any subresource of namespaces.
		plugin.Rule("", []string{"namespaces/*"}, admissionregistrationv1.Delete),
	}}
}
