package quota

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests the plugin looks at: creates of any namespaced
// object, and updates of the objects whose usage can grow, never
// subresources; all only in namespaces that hold a ResourceQuota, which
// the registry checks in its own storage, so that writes where no quota
// applies cost no round trip.
func Rules() admission.Rules {
	withQuota := &admission.NamespaceCondition{Holding: []metav1.GroupResource{{Resource: "resourcequotas"}}}
	creates := plugin.Namespaced(plugin.Rule("*", []string{"*"}, admissionregistrationv1.Create))
	updates := plugin.Namespaced(plugin.Rule("", []string{podsResource.Resource, servicesResource.Resource, pvcsResource.Resource}, admissionregistrationv1.Update))
	creates.Namespace, updates.Namespace = withQuota, withQuota
	return admission.Rules{Validating: []admission.Rule{creates, updates}}
}
