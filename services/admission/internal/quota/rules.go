package quota

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests handles lets through: creates of any namespaced
// object, and updates of the objects whose usage can grow; never
// subresources.
func Rules() admission.Rules {
	return admission.Rules{Validating: []admission.Rule{
		plugin.Namespaced(plugin.Rule("*", []string{"*"}, admissionregistrationv1.Create)),
		plugin.Namespaced(plugin.Rule("", []string{podsResource.Resource, servicesResource.Resource, pvcsResource.Resource}, admissionregistrationv1.Update)),
	}}
}
