package resource

import (
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// resourceGroup is resource.k8s.io/v1, dynamic resource allocation.
//
// Two checks of kube's strategies ask beyond the object, through the
// request's kubetype.Env. Admin access to devices (a request's
// adminAccess: true, or an allocation result granting it) needs the
// namespace's resource.kubernetes.io/admin-access label, read from the
// registry's namespaces (a namespace that cannot be read refuses the
// write, 422, never lets it through). A ResourceClaim's status write that
// changes the allocation, reservedFor or a driver's device status asks the
// authorizer about the synthetic resourceclaims/binding and
// resourceclaims/driver subresources: kubetype.Authorizer allows
// system:masters and asks authz about anyone else.
func resourceGroup() []*Info {
	const g = "resource.k8s.io"
	claims := resourceclaim.NewStrategy(kubetype.Namespaces, kubetype.Authorizer)
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "deviceclasses", Kind: "DeviceClass", Singular: "deviceclass"},
			deviceclass.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "devicetaintrules", Kind: "DeviceTaintRule", Singular: "devicetaintrule",
			StatusSubresource: true},
			devicetaintrule.Strategy, status(devicetaintrule.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "resourceclaims", Kind: "ResourceClaim", Singular: "resourceclaim",
			Namespaced: true, StatusSubresource: true},
			claims, status(resourceclaim.NewStatusStrategy(claims))),
		kube(&Info{Group: g, Version: "v1", Resource: "resourceclaimtemplates", Kind: "ResourceClaimTemplate",
			Singular: "resourceclaimtemplate", Namespaced: true},
			resourceclaimtemplate.NewStrategy(kubetype.Namespaces), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "resourceslices", Kind: "ResourceSlice", Singular: "resourceslice"},
			resourceslice.Strategy, nil),
	}
}
