package quota

import (
	"maps"
	"slices"

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
	rules := []admission.Rule{plugin.Namespaced(plugin.Rule("*", []string{"*"}, admissionregistrationv1.Create))}
	byGroup := map[string][]string{}
	for _, gr := range updatable {
		byGroup[gr.Group] = append(byGroup[gr.Group], gr.Resource)
	}
	for _, group := range slices.Sorted(maps.Keys(byGroup)) {
		rules = append(rules, plugin.Namespaced(plugin.Rule(group, byGroup[group], admissionregistrationv1.Update)))
	}
	withQuota := &admission.NamespaceCondition{Holding: []metav1.GroupResource{{Resource: "resourcequotas"}}}
	for i := range rules {
		rules[i].Namespace = withQuota
	}
	return admission.Rules{Validating: rules}
}
