package plugin

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Rule is a webhook rule for ops on resources of group, in any version:
// plugins look at group and resource, never at the version.
func Rule(group string, resources []string, ops ...admissionregistrationv1.OperationType) admission.Rule {
	return admission.Rule{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: resources,
		},
	}}
}

// Namespaced narrows r to namespaced objects, as a webhook rule's
// scope "Namespaced" does (a namespace itself is not one).
func Namespaced(r admission.Rule) admission.Rule {
	scope := admissionregistrationv1.NamespacedScope
	r.Scope = &scope
	return r
}

// AnyGroup are rules widened to every group, where a matchPolicy
// Equivalent may find a resource's equivalent (core and events.k8s.io
// Events are stored as one): what a plugin publishes for such rules.
func AnyGroup(rules []admission.Rule) []admission.Rule {
	for i := range rules {
		rules[i].APIGroups = []string{"*"}
	}
	return rules
}
