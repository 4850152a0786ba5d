package resource

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// admissionregistration is admissionregistration.k8s.io/v1. The policies'
// strategies get no authorizer: a policy's paramKind and a binding's
// paramRef are not checked against the writer's own permissions here.
func admissionregistration() []*Info {
	const g = "admissionregistration.k8s.io"
	ext := []string{"api-extensions"}
	vap := validatingadmissionpolicy.NewStrategy(nil, nil)
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "mutatingwebhookconfigurations", Kind: "MutatingWebhookConfiguration",
			Singular: "mutatingwebhookconfiguration", Categories: ext},
			mutatingwebhookconfiguration.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration",
			Singular: "validatingwebhookconfiguration", Categories: ext},
			validatingwebhookconfiguration.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy",
			Singular: "validatingadmissionpolicy", Categories: ext, StatusSubresource: true},
			vap, status(validatingadmissionpolicy.NewStatusStrategy(vap))),
		kube(&Info{Group: g, Version: "v1", Resource: "validatingadmissionpolicybindings", Kind: "ValidatingAdmissionPolicyBinding",
			Singular: "validatingadmissionpolicybinding", Categories: ext},
			validatingadmissionpolicybinding.NewStrategy(nil, nil, unresolved), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "mutatingadmissionpolicies", Kind: "MutatingAdmissionPolicy",
			Singular: "mutatingadmissionpolicy", Categories: ext},
			mutatingadmissionpolicy.NewStrategy(nil, nil), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "mutatingadmissionpolicybindings", Kind: "MutatingAdmissionPolicyBinding",
			Singular: "mutatingadmissionpolicybinding", Categories: ext},
			mutatingadmissionpolicybinding.NewStrategy(nil, nil, unresolved), nil),
	}
}

// unresolved is the policy binding strategies' resource resolver.
// kube refuses every binding with a paramRef when the resolver is nil
// (before it looks at the authorizer), and calls it only to narrow the
// authorizer's question, which without an authorizer it never asks.
var unresolved = resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
})
