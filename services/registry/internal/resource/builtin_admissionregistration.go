package resource

import (
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
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
			validatingadmissionpolicybinding.NewStrategy(nil, nil, nil), nil),
	}
}
