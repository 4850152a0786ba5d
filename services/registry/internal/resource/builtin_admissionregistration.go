package resource

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// admissionregistration is admissionregistration.k8s.io/v1. As in kube, a
// policy's paramKind and a binding's paramRef must name what the writer
// may read itself (kubetype.Authorizer asks authz for the writer), so
// that nobody reads through a policy what they may not read directly.
func admissionregistration() []*Info {
	const g = "admissionregistration.k8s.io"
	ext := []string{"api-extensions"}
	vap := validatingadmissionpolicy.NewStrategy(kubetype.Authorizer, builtinResolver{})
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
			validatingadmissionpolicybinding.NewStrategy(kubetype.Authorizer, kubetype.PolicyGetter, builtinResolver{}), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "mutatingadmissionpolicies", Kind: "MutatingAdmissionPolicy",
			Singular: "mutatingadmissionpolicy", Categories: ext},
			mutatingadmissionpolicy.NewStrategy(kubetype.Authorizer, builtinResolver{}), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "mutatingadmissionpolicybindings", Kind: "MutatingAdmissionPolicyBinding",
			Singular: "mutatingadmissionpolicybinding", Categories: ext},
			mutatingadmissionpolicybinding.NewStrategy(kubetype.Authorizer, kubetype.PolicyGetter, builtinResolver{}), nil),
	}
}

// builtinResolver finds the resource of a built-in kind, for the policy
// strategies' narrowing of what they ask the authorizer (read access to
// the params' resource only). A custom resource's kind does not resolve:
// kube then asks about every resource of the group version, which is
// stricter, never looser.
type builtinResolver struct{}

func (builtinResolver) Resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	builtinKinds.once.Do(func() {
		builtinKinds.m = map[schema.GroupVersionKind]schema.GroupVersionResource{}
		for _, info := range Builtins() {
			builtinKinds.m[info.GroupVersionKind()] = info.GroupVersionResource()
		}
	})
	if gvr, ok := builtinKinds.m[gvk]; ok {
		return gvr, nil
	}
	return schema.GroupVersionResource{}, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

var builtinKinds struct {
	once sync.Once
	m    map[schema.GroupVersionKind]schema.GroupVersionResource
}
