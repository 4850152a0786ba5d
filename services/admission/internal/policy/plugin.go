// Package policy is the ValidatingAdmissionPolicy admission plugin:
// ValidatingAdmissionPolicies and their bindings
// (admissionregistration.k8s.io/v1), evaluated with CEL as kube-apiserver's
// plugin of that name does. A policy says which requests it is about
// (matchConstraints, matchConditions) and what must hold of them
// (validations, over object, oldObject, request, params, namespaceObject
// and variables); a binding applies it to some of those requests
// (matchResources), with params (paramRef), and says what a failed
// validation does (validationActions: Deny, Warn, Audit).
//
// The CEL environment is pkg/celenv's, which the registry also compiles
// policies with when they are written. kube's authorizer variable is not
// offered.
package policy

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery/cached/memory"
	admlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/celenv"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/selector"
)

// Plugin evaluates the cluster's ValidatingAdmissionPolicies.
type Plugin struct {
	policies admlisters.ValidatingAdmissionPolicyLister
	bindings admlisters.ValidatingAdmissionPolicyBindingLister
	synced   []cache.InformerSynced
	matcher  matcher
	params   *params
	compiled compiledCache
}

var (
	_ admission.Admitter  = (*Plugin)(nil)
	_ plugin.DynamicRules = (*Plugin)(nil)
)

// New builds the plugin on the shared informers of policies, bindings and
// namespaces; params are read through informers of their own, one per
// param kind, made with deps' dynamic client.
func New(deps plugin.Deps) (admission.Admitter, error) {
	if deps.Informers == nil || deps.Client == nil {
		return nil, fmt.Errorf("%w: ValidatingAdmissionPolicy needs a client and informers", admission.ErrInvalidConfig)
	}
	// Without a dynamic client (a service built on a fake clientset),
	// bindings with params are configuration errors; the rest works.
	dyn, dynErr := dynamicClient(deps)
	adm := deps.Informers.Admissionregistration().V1()
	policies, bindings := adm.ValidatingAdmissionPolicies(), adm.ValidatingAdmissionPolicyBindings()
	namespaces := deps.Informers.Core().V1().Namespaces()
	p := &Plugin{
		policies: policies.Lister(),
		bindings: bindings.Lister(),
		synced: []cache.InformerSynced{policies.Informer().HasSynced, bindings.Informer().HasSynced,
			namespaces.Informer().HasSynced},
		matcher: matcher{namespaces: selector.Namespaces{Lister: namespaces.Lister(), Client: deps.Client}},
		params: &params{
			dynamic: dyn,
			err:     dynErr,
			mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(deps.Client.Discovery())),
			stop:    make(chan struct{}), // param informers run as long as the service
		},
	}
	return p, nil
}

// Admit evaluates every policy that has bindings against a, and answers
// with what their bindings' validationActions make of the failures.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if err := plugin.WaitSynced(ctx, p.synced...); err != nil {
		return nil, err
	}
	bound, err := p.boundPolicies()
	if err != nil {
		return nil, err
	}
	if len(bound) == 0 {
		return admission.Allow(), nil
	}
	r, in, err := p.inputs(ctx, a)
	if err != nil {
		return nil, err
	}
	var out outcome
	for _, b := range bound {
		p.admitPolicy(ctx, r, in, b, &out)
	}
	return out.result(a), nil
}

// boundPolicy is a policy with the bindings that name it.
type boundPolicy struct {
	policy   *admv1.ValidatingAdmissionPolicy
	bindings []*admv1.ValidatingAdmissionPolicyBinding
}

// boundPolicies are the policies that have bindings, by name, each with
// its bindings by name, so that the first denial is always the same one.
func (p *Plugin) boundPolicies() ([]boundPolicy, error) {
	bindings, err := p.bindings.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	byPolicy := map[string][]*admv1.ValidatingAdmissionPolicyBinding{}
	for _, b := range bindings {
		byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
	}
	var out []boundPolicy
	for name, bs := range byPolicy {
		pol, err := p.policies.Get(name)
		if err != nil {
			continue // a binding to a policy that does not exist does nothing
		}
		slices.SortFunc(bs, func(x, y *admv1.ValidatingAdmissionPolicyBinding) int { return cmp.Compare(x.Name, y.Name) })
		out = append(out, boundPolicy{policy: pol, bindings: bs})
	}
	slices.SortFunc(out, func(x, y boundPolicy) int { return cmp.Compare(x.policy.Name, y.policy.Name) })
	return out, nil
}

// admitPolicy evaluates one policy through each of its bindings that
// selects r, adding what it decides to out.
func (p *Plugin) admitPolicy(ctx context.Context, r *request, in inputs, b boundPolicy, out *outcome) {
	pol := b.policy
	ok, err := p.matcher.matches(ctx, pol.Spec.MatchConstraints, r)
	if err != nil {
		out.configError(pol, nil, err)
		return
	}
	if !ok {
		return
	}
	c := p.compiled.get(pol)
	if c.err != nil {
		out.configError(pol, nil, c.err)
		return
	}
	annotations := map[string][]string{}
	for _, binding := range b.bindings {
		ok, err := p.matcher.matches(ctx, binding.Spec.MatchResources, r)
		if err != nil {
			out.configError(pol, binding, err)
			continue
		}
		if !ok {
			continue
		}
		found, err := p.params.collect(ctx, pol.Spec.ParamKind, binding.Spec.ParamRef, r.Namespace)
		if err != nil {
			out.configError(pol, binding, err)
			continue
		}
		for _, param := range found {
			ev := c.evaluate(in, param)
			out.add(pol, binding, ev)
			for k, v := range ev.annotations {
				if !slices.Contains(annotations[k], v) {
					annotations[k] = append(annotations[k], v)
				}
			}
		}
	}
	out.annotate(annotations)
}

// inputs decodes the request's objects once for every policy: for
// matching, and as CEL's variables.
func (p *Plugin) inputs(ctx context.Context, a *admission.Attributes) (*request, inputs, error) {
	obj, err := celenv.JSONValue(a.Object.Raw)
	if err != nil {
		return nil, nil, err
	}
	old, err := celenv.JSONValue(a.OldObject.Raw)
	if err != nil {
		return nil, nil, err
	}
	req, err := celenv.RequestValue(a)
	if err != nil {
		return nil, nil, err
	}
	r := &request{Attributes: a}
	r.object, _ = obj.(map[string]any)
	r.oldObject, _ = old.(map[string]any)
	in := inputs{celenv.Object: obj, celenv.OldObject: old, celenv.Request: req, celenv.NamespaceObject: nil}
	if a.Namespace != "" && !isNamespace(a) {
		// A missing namespace fails the namespaced request anyway, in
		// the registry; the policy then sees null.
		if ns, err := p.matcher.namespace(ctx, a.Namespace); err == nil {
			if in[celenv.NamespaceObject], err = celenv.Value(ns); err != nil {
				return nil, nil, err
			}
		}
	}
	return r, in, nil
}
