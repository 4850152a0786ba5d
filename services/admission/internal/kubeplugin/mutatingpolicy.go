package kubeplugin

import (
	"errors"
	"fmt"

	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	admlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/policy"
)

// MutatingAdmissionPolicy is kube's plugin of that name: it applies the
// mutations (ApplyConfiguration, JSONPatch) of the
// MutatingAdmissionPolicies that a binding applies to a request. Its
// rules follow the policies, so it is built by NewMutatingPolicyPhases,
// not from the table of plugins with static rules.
const MutatingAdmissionPolicy = mutating.PluginName

// NewMutatingPolicyPhases builds kube's MutatingAdmissionPolicy plugin as
// kube-apiserver does (its informers, dynamic client for params, REST
// mapper, authorizer and the OpenAPI it types ApplyConfigurations with,
// read from the API) and returns it as the mutating half, publishing the
// rules of the bound policies. It needs deps.Dynamic: kube's plugin
// refuses to start without one.
func NewMutatingPolicyPhases(deps plugin.Deps) (m, v admission.Admitter, err error) {
	if deps.Dynamic == nil {
		return nil, nil, fmt.Errorf("%w: %s needs a dynamic client (a REST configuration)", admission.ErrInvalidConfig, MutatingAdmissionPolicy)
	}
	kube, err := initialized(MutatingAdmissionPolicy, mutating.Register, deps)
	if err != nil {
		return nil, nil, err
	}
	mi, ok := kube.(kubeadmission.MutationInterface)
	if !ok {
		return nil, nil, errors.New("kube's MutatingAdmissionPolicy does not mutate")
	}
	adm := deps.Informers.Admissionregistration().V1()
	policies, bindings := adm.MutatingAdmissionPolicies(), adm.MutatingAdmissionPolicyBindings()
	equivalents := kubeobject.NewEquivalents(deps.Client.Discovery())
	return policyMutator{
		mutator: mutator{kube: mi, objects: kubeobject.ObjectInterfacesWith(equivalents)},
		rules: boundRules{policies: policies.Lister(), bindings: bindings.Lister(), equivalents: equivalents,
			synced: []cache.InformerSynced{policies.Informer().HasSynced, bindings.Informer().HasSynced}},
	}, nil, nil
}

// policyMutator is kube's plugin's Admit, with the rules of the policies
// it would apply.
type policyMutator struct {
	mutator
	rules boundRules
}

var _ plugin.DynamicRules = policyMutator{}

// CurrentRules implements plugin.DynamicRules.
func (p policyMutator) CurrentRules() admission.Rules { return p.rules.current() }

// boundRules are the mutating rules of the MutatingAdmissionPolicies that
// have bindings, read from the informers the plugin runs on.
type boundRules struct {
	policies    admlisters.MutatingAdmissionPolicyLister
	bindings    admlisters.MutatingAdmissionPolicyBindingLister
	equivalents *kubeobject.Equivalents
	synced      []cache.InformerSynced
}

// current are the bound policies' matchConstraints as webhook rules,
// broadened as policy.MatchRules says (the plugin applies the rest
// itself); none without bindings, and everything until the informers
// synced or when they cannot be read, so that no request slips by.
func (r boundRules) current() admission.Rules {
	everything := admission.Rules{Mutating: []admission.Rule{policy.Everything()}}
	for _, s := range r.synced {
		if !s() {
			return everything
		}
	}
	bindings, err := r.bindings.List(labels.Everything())
	if err != nil {
		return everything
	}
	out := admission.Rules{Mutating: []admission.Rule{}}
	seen := map[string]bool{}
	for _, b := range bindings {
		name := b.Spec.PolicyName
		if seen[name] {
			continue
		}
		seen[name] = true
		p, err := r.policies.Get(name)
		if err != nil {
			continue // a binding to a policy that does not exist does nothing
		}
		out.Mutating = append(out.Mutating, r.widened(p.Spec.MatchConstraints)...)
	}
	return out
}

// widened are a policy's match rules as published: under matchPolicy
// Equivalent with its resources' equivalents too (kube's plugin matches a
// resource by them; see kubeobject.Equivalents.Widen).
func (r boundRules) widened(mc *admv1.MatchResources) []admission.Rule {
	rules := policy.MatchRules(mc)
	if mc != nil && mc.MatchPolicy != nil && *mc.MatchPolicy == admv1.Exact {
		return rules
	}
	return r.equivalents.Widen(rules)
}
