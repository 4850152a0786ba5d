package policy

import (
	admv1 "k8s.io/api/admissionregistration/v1"

	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// NoRules are the plugin's static rules: none, since what the service
// publishes for it is its CurrentRules.
func NoRules() admission.Rules { return admission.Rules{} }

// allRules is what the plugin is asked about before its informers have
// told it which policies exist: every write, so that none slips by.
func allRules() admission.Rules {
	return admission.Rules{Validating: []admission.Rule{Everything()}}
}

// Everything is the rule matching every write: what an admission policy
// plugin asks to be asked about when it cannot yet say less.
func Everything() admission.Rule {
	return admission.Rule{RuleWithOperations: admv1.RuleWithOperations{
		Operations: []admv1.OperationType{admv1.OperationAll},
		Rule:       admv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/*"}},
	}}
}

// CurrentRules are the resource rules of the policies that have bindings,
// broadened where they cannot be said exactly as webhook rules: resource
// names, excluded rules and selectors are left out (the plugin itself
// applies them), and under matchPolicy Equivalent any version of the
// group counts. A binding only narrows its policy, so its own rules need
// not be published. Before the informers synced, everything.
func (p *Plugin) CurrentRules() admission.Rules {
	if !allSynced(p.synced) {
		return allRules()
	}
	bound, err := p.boundPolicies()
	if err != nil {
		return allRules()
	}
	out := admission.Rules{Validating: []admission.Rule{}}
	for _, b := range bound {
		out.Validating = append(out.Validating, MatchRules(b.policy.Spec.MatchConstraints)...)
	}
	return out
}

// MatchRules are an admission policy's matchConstraints (validating or
// mutating: the same type) as webhook rules, broadened as CurrentRules
// says; everything when they have none to say (a policy stored without
// matchConstraints).
func MatchRules(mc *admv1.MatchResources) []admission.Rule {
	if mc == nil || len(mc.ResourceRules) == 0 {
		return []admission.Rule{Everything()}
	}
	equivalent := mc.MatchPolicy == nil || *mc.MatchPolicy == admv1.Equivalent
	var out []admission.Rule
	for _, r := range mc.ResourceRules {
		rule := admission.Rule{RuleWithOperations: *r.RuleWithOperations.DeepCopy()}
		if equivalent {
			rule.APIVersions = []string{"*"}
		}
		out = append(out, rule)
	}
	return out
}

func allSynced(synced []cache.InformerSynced) bool {
	for _, s := range synced {
		if !s() {
			return false
		}
	}
	return true
}
