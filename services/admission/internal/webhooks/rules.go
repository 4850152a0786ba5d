package webhooks

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
)

// exempt are the resources whose requests no webhook is asked about, as
// in kube: the admission configurations themselves, so that a webhook
// that is down or denies everything can still be removed.
var exempt = map[string]bool{
	"mutatingwebhookconfigurations":     true,
	"validatingwebhookconfigurations":   true,
	"mutatingadmissionpolicies":         true,
	"mutatingadmissionpolicybindings":   true,
	"validatingadmissionpolicies":       true,
	"validatingadmissionpolicybindings": true,
}

func isExempt(a *admission.Attributes) bool {
	return a.Resource.Group == admissionregistrationv1.GroupName && exempt[a.Resource.Resource]
}

// asRules are a webhook's rules in pkg/admission's form; with anyVersion,
// of any version (see hook.anyVersion).
func asRules(rules []admissionregistrationv1.RuleWithOperations, anyVersion bool) []admission.Rule {
	out := make([]admission.Rule, 0, len(rules))
	for _, r := range rules {
		rule := admission.Rule{RuleWithOperations: *r.DeepCopy()}
		if anyVersion {
			rule.APIVersions = []string{"*"}
		}
		out = append(out, rule)
	}
	return out
}

// matchesRules is kube's first rule check, before any equivalent resource
// is tried: Exact matches the resource the client asked for only;
// Equivalent also the resource it is stored as.
func (h *hook) matchesRules(a *admission.Attributes) bool {
	if !h.exact {
		return admission.Matches(h.rules, a)
	}
	asked := *a
	if a.RequestResource != (metav1.GroupVersionResource{}) {
		asked.Resource, asked.SubResource = a.RequestResource, a.RequestSubResource
	}
	asked.RequestResource = metav1.GroupVersionResource{}
	return admission.Matches(h.rules, &asked)
}

// publishedRules is what the registry is told the webhook wants: its
// rules, under Equivalent widened to any version and to the equivalent
// resources of other groups (see Equivalents.Widen). Selectors and match
// conditions are not published, which only asks about more.
func (h *hook) publishedRules(equivalents *kubeobject.Equivalents) []admission.Rule {
	if h.exact {
		return h.rules
	}
	return equivalents.Widen(h.rules)
}

// everything is the rule matching every request, published while the
// configurations are not known yet.
func everything() admission.Rule {
	return admission.Rule{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/*"},
		},
	}}
}
