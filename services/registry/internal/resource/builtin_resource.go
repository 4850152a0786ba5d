package resource

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// resourceGroup is resource.k8s.io/v1, dynamic resource allocation.
//
// Two checks of kube's strategies need what the registry cannot give them.
// Admin access to devices (a request's adminAccess: true, or an allocation
// result granting it) needs the namespace's
// resource.kubernetes.io/admin-access label, which kube reads through a
// namespace client: here the lookup fails, so such a claim or template is
// refused (422), never let through. A ResourceClaim's status write that
// changes the allocation, reservedFor or a driver's device status asks the
// authorizer about the synthetic resourceclaims/binding and
// resourceclaims/driver subresources: kubetype.Authorizer allows
// system:masters and asks authz about anyone else.
func resourceGroup() []*Info {
	const g = "resource.k8s.io"
	claims := resourceclaim.NewStrategy(noNamespaces{}, kubetype.Authorizer)
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
			resourceclaimtemplate.NewStrategy(noNamespaces{}), nil),
		kube(&Info{Group: g, Version: "v1", Resource: "resourceslices", Kind: "ResourceSlice", Singular: "resourceslice"},
			resourceslice.Strategy, nil),
	}
}

// noNamespaces is the namespace client of the DRA strategies, which only
// Get a namespace, to read its admin-access label: the registry's
// strategies reach no API, so the lookup fails and kube's check refuses the
// write with "could not retrieve namespace to verify admin access". A nil
// client would panic there instead.
type noNamespaces struct {
	corev1client.NamespaceInterface // nil: kube's strategies call only Get
}

func (noNamespaces) Get(context.Context, string, metav1.GetOptions) (*corev1.Namespace, error) {
	return nil, errors.New("kubesplit's registry does not look namespaces up for the resource.k8s.io strategies")
}
